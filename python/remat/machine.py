"""What a measurement records about the machine it ran on (the frontends'
`measure` and `compare` write it beside their figures)."""

import os


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or "unknown CPU"."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def load_average():
    """The 1, 5 and 15 minute load averages as text, or "unknown"."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
