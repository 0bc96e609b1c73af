"""Reading remat's JSON report (remat-report, `remat.plan`)."""

DECISIONS = ("save", "recompute", "derive", "not-needed", "input")


class Report:
    """One planned function: summary fields as attributes (`strategy`,
    `peak_memory_bytes`, `saved_bytes`, `predicted_recompute_time_us`, ...,
    whatever the report carries) and `values`, one dict per value in IR
    order (`name`, `decision`, `reason`, `bytes`, `derived_from`, ...)."""

    def __init__(self, data, text=None, timing=None):
        self.data = data
        self.text = text
        self.timing = timing or {}
        self.values = data.get("values", [])
        self._by_name = {}
        for value in self.values:
            self._by_name.setdefault(value.get("name"), value)

    @classmethod
    def load(cls, path):
        import json

        with open(path) as f:
            text = f.read()
        data = json.loads(text)
        if not isinstance(data, (dict, list)):
            raise ValueError(f"{path}: expected remat-report JSON (an "
                             f"object), found {type(data).__name__}")
        if isinstance(data, list):
            # Before 2026-12-07 the first of several was returned, silently.
            if len(data) != 1:
                raise ValueError(
                    f"{path} holds {len(data)} reports (one per joint "
                    "function, or per graph a torch.compile backend "
                    "planned): read them with Report.load_all")
            data = data[0]
        return cls(data, text=text)

    @classmethod
    def load_all(cls, path):
        """Every report in `path`: a list of one for a JSON object, of each
        element for an array (a module of several joint functions, or a
        torch.compile backend that planned several graphs)."""
        import json

        with open(path) as f:
            data = json.load(f)
        entries = data if isinstance(data, list) else [data]
        for entry in entries:
            if not isinstance(entry, dict):
                raise ValueError(f"{path}: expected remat-report JSON (an "
                                 "object, or an array of them), found "
                                 f"{type(entry).__name__}")
        return [cls(d) for d in entries]

    def __getattr__(self, key):
        data = self.__dict__.get("data", {})
        if key in data:
            return data[key]
        raise AttributeError(f"the report has no field '{key}'")

    def value(self, name):
        """The entry of the value named `name` (KeyError if none)."""
        if name not in self._by_name:
            raise KeyError(f"no value named '{name}' in the report")
        return self._by_name[name]

    def decision(self, name):
        return self.value(name)["decision"]

    def names(self, decision):
        """Names of the values with this decision, in IR order."""
        if decision not in DECISIONS:
            raise ValueError(f"decision '{decision}': expected one of "
                             f"{', '.join(DECISIONS)}")
        return [v["name"] for v in self.values if v["decision"] == decision]

    def write(self, path):
        """Writes the report: exactly as remat-report wrote it when this
        Report has that text (`remat.plan` of a one-function module,
        `Report.load`), else its data as indented JSON (`load_all`, one of
        `plan_all`'s; before 2026-12-07 those emptied the file and raised
        TypeError)."""
        import json

        text = self.text
        if text is None:
            text = json.dumps(self.data, indent=2) + "\n"
        with open(path, "w") as f:
            f.write(text)
