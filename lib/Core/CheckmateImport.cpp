//===- CheckmateImport.cpp - Read Checkmate benchmark graphs --------------===//
//
// Part of remat. A small JSON reader (the core depends on Abseil only) and
// the mapping of node-link graphs onto Graph; see CheckmateImport.h.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/CheckmateImport.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace remat {

namespace {

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

struct JsonValue {
  enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  bool isInteger = false; // written without fraction or exponent
  int64_t integer = 0;    // valid when isInteger
  std::string text;
  std::vector<JsonValue> elements;
  std::vector<std::pair<std::string, JsonValue>> members;

  const JsonValue *find(std::string_view key) const {
    for (const auto &[name, value] : members)
      if (name == key)
        return &value;
    return nullptr;
  }
};

/// Recursive descent over RFC 8259 JSON. Nesting is bounded so a hostile
/// file cannot exhaust the stack.
class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> parseDocument() {
    JsonValue value;
    if (absl::Status status = parseValue(value, 0); !status.ok())
      return status;
    skipSpace();
    if (pos_ != text_.size())
      return error("unexpected text after the JSON value");
    return value;
  }

private:
  static constexpr int kMaxDepth = 64;

  absl::Status error(std::string_view what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "malformed JSON at line %d, column %d: %s", line, column, what));
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  absl::Status parseValue(JsonValue &value, int depth) {
    if (depth > kMaxDepth)
      return error("nesting deeper than 64 levels");
    skipSpace();
    if (pos_ >= text_.size())
      return error("unexpected end of input, expected a value");
    char c = text_[pos_];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      return parseString(value.text);
    }
    if (consumeWord("true")) {
      value.kind = JsonValue::Kind::Bool;
      value.boolean = true;
      return absl::OkStatus();
    }
    if (consumeWord("false")) {
      value.kind = JsonValue::Kind::Bool;
      return absl::OkStatus();
    }
    if (consumeWord("null"))
      return absl::OkStatus();
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(value);
    return error(absl::StrCat("unexpected character '", std::string(1, c),
                              "', expected a value"));
  }

  absl::Status parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Object;
    ++pos_; // '{'
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    // Python's json, which writes these files, keeps the last of two equal
    // names and this reader would keep the first: refuse both.
    std::set<std::string> names;
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return error("expected a member name in quotes");
      std::string name;
      if (absl::Status status = parseString(name); !status.ok())
        return status;
      if (!names.insert(name).second)
        return error(absl::StrCat("member \"", name,
                                  "\" appears twice in one object; give it "
                                  "once"));
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return error("expected ':' after a member name");
      ++pos_;
      JsonValue member;
      if (absl::Status status = parseValue(member, depth + 1); !status.ok())
        return status;
      value.members.emplace_back(std::move(name), std::move(member));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return error("expected ',' or '}' in an object");
    }
  }

  absl::Status parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Array;
    ++pos_; // '['
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      JsonValue element;
      if (absl::Status status = parseValue(element, depth + 1); !status.ok())
        return status;
      value.elements.push_back(std::move(element));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      return error("expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t codePoint) {
    if (codePoint < 0x80) {
      out += static_cast<char>(codePoint);
    } else if (codePoint < 0x800) {
      out += static_cast<char>(0xC0 | (codePoint >> 6));
      out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else if (codePoint < 0x10000) {
      out += static_cast<char>(0xE0 | (codePoint >> 12));
      out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (codePoint >> 18));
      out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (codePoint & 0x3F));
    }
  }

  absl::Status parseHex4(uint32_t &codePoint) {
    if (pos_ + 4 > text_.size())
      return error("truncated \\u escape");
    codePoint = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      codePoint <<= 4;
      if (c >= '0' && c <= '9')
        codePoint |= c - '0';
      else if (c >= 'a' && c <= 'f')
        codePoint |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        codePoint |= c - 'A' + 10;
      else
        return error("invalid hex digit in a \\u escape");
    }
    return absl::OkStatus();
  }

  absl::Status parseString(std::string &out) {
    ++pos_; // opening quote
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"')
        return absl::OkStatus();
      if (static_cast<unsigned char>(c) < 0x20)
        return error("control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        break;
      char escape = text_[pos_++];
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t codePoint = 0;
        if (absl::Status status = parseHex4(codePoint); !status.ok())
          return status;
        if (codePoint >= 0xD800 && codePoint < 0xDC00 &&
            text_.substr(pos_, 2) == "\\u") {
          pos_ += 2;
          uint32_t low = 0;
          if (absl::Status status = parseHex4(low); !status.ok())
            return status;
          if (low < 0xDC00 || low >= 0xE000)
            return error("invalid low surrogate in a \\u escape");
          codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, codePoint);
        break;
      }
      default:
        return error("invalid escape in a string");
      }
    }
    return error("unterminated string");
  }

  absl::Status parseNumber(JsonValue &value) {
    size_t start = pos_;
    if (text_[pos_] == '-')
      ++pos_;
    auto digits = [&] {
      size_t first = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        ++pos_;
      return pos_ > first;
    };
    if (!digits())
      return error("expected digits in a number");
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (!digits())
        return error("expected digits after '.' in a number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (!digits())
        return error("expected digits in a number's exponent");
    }
    std::string literal(text_.substr(start, pos_ - start));
    value.kind = JsonValue::Kind::Number;
    value.number = std::strtod(literal.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long parsed = std::strtoll(literal.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        value.isInteger = true;
        value.integer = parsed;
      }
    }
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

//===----------------------------------------------------------------------===//
// Node-link graphs
//===----------------------------------------------------------------------===//

struct Node {
  int64_t id = 0;
  std::string name;
  std::optional<Phase> phase;
  double costUs = 0;
  int64_t outputBytes = 0;
  int64_t parameterBytes = 0;
  std::vector<int64_t> sources; // ids of the nodes it reads, distinct
  bool isRead = false;
};

/// The field names of one schema.
struct Schema {
  std::string_view id, cost, memory, parameter, linkSource, linkTarget;
  bool hasPhase = false;
};
constexpr Schema kModelSchema = {"id",     "cost_cpu", "cost_ram", "",
                                 "source", "target",   true};
constexpr Schema kRandomSchema = {"name", "duration", "out_cost", "param_cost",
                                  "0",    "1",        false};

absl::StatusOr<int64_t> integerField(const JsonValue &object,
                                     std::string_view key,
                                     std::string_view where) {
  const JsonValue *field = object.find(key);
  if (!field || field->kind != JsonValue::Kind::Number || !field->isInteger)
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected an integer field \"%s\"", where, key));
  return field->integer;
}

absl::StatusOr<double> numberField(const JsonValue &object,
                                   std::string_view key,
                                   std::string_view where) {
  const JsonValue *field = object.find(key);
  if (!field || field->kind != JsonValue::Kind::Number ||
      !std::isfinite(field->number))
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected a numeric field \"%s\"", where, key));
  return field->number;
}

absl::StatusOr<std::vector<Node>> readNodes(const JsonValue &nodes,
                                            const Schema &schema) {
  std::vector<Node> result;
  for (size_t index = 0; index < nodes.elements.size(); ++index) {
    const JsonValue &object = nodes.elements[index];
    std::string where = absl::StrCat("node #", index, " of \"nodes\"");
    if (object.kind != JsonValue::Kind::Object)
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected an object"));
    Node node;
    absl::StatusOr<int64_t> id = integerField(object, schema.id, where);
    if (!id.ok())
      return id.status();
    node.id = *id;
    where = absl::StrCat("node ", node.id);
    absl::StatusOr<double> cost = numberField(object, schema.cost, where);
    if (!cost.ok())
      return cost.status();
    absl::StatusOr<int64_t> memory = integerField(object, schema.memory, where);
    if (!memory.ok())
      return memory.status();
    if (*cost < 0 || *memory < 0)
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: \"%s\" and \"%s\" must not be negative", where,
                          schema.cost, schema.memory));
    node.costUs = *cost;
    node.outputBytes = *memory;
    if (!schema.parameter.empty() && object.find(schema.parameter)) {
      absl::StatusOr<int64_t> parameter =
          integerField(object, schema.parameter, where);
      if (!parameter.ok())
        return parameter.status();
      if (*parameter < 0)
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: \"%s\" must not be negative", where, schema.parameter));
      node.parameterBytes = *parameter;
    }
    if (schema.hasPhase) {
      const JsonValue *backward = object.find("backward");
      if (!backward || backward->kind != JsonValue::Kind::Bool)
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": expected a boolean field \"backward\""));
      node.phase = backward->boolean ? Phase::Backward : Phase::Forward;
      const JsonValue *name = object.find("name");
      if (name && name->kind == JsonValue::Kind::String)
        node.name = name->text;
    }
    if (node.name.empty())
      node.name = absl::StrCat("node", node.id);
    result.push_back(std::move(node));
  }
  return result;
}

} // namespace

absl::StatusOr<Graph> importCheckmateJson(std::string_view json) {
  absl::StatusOr<JsonValue> document = JsonParser(json).parseDocument();
  if (!document.ok())
    return document.status();
  const JsonValue *nodes = document->find("nodes");
  const JsonValue *links = document->find("links");
  if (document->kind != JsonValue::Kind::Object || !nodes ||
      nodes->kind != JsonValue::Kind::Array || !links ||
      links->kind != JsonValue::Kind::Array)
    return absl::InvalidArgumentError(
        "not a node-link graph: expected an object with arrays \"nodes\" and "
        "\"links\"");
  if (nodes->elements.empty())
    return absl::InvalidArgumentError("the graph has no nodes");

  // The first node tells the schema apart.
  const JsonValue &first = nodes->elements.front();
  const Schema *schema = nullptr;
  if (first.find("cost_ram"))
    schema = &kModelSchema;
  else if (first.find("out_cost"))
    schema = &kRandomSchema;
  else
    return absl::InvalidArgumentError(
        "unknown node schema: the first node has neither \"cost_ram\" (model "
        "graphs: id, name, backward, cost_cpu, cost_ram) nor \"out_cost\" "
        "(random graphs: name, out_cost, param_cost, duration)");

  absl::StatusOr<std::vector<Node>> read = readNodes(*nodes, *schema);
  if (!read.ok())
    return read.status();
  std::vector<Node> &graphNodes = *read;
  std::map<int64_t, size_t> indexOf;
  for (size_t i = 0; i < graphNodes.size(); ++i)
    if (!indexOf.emplace(graphNodes[i].id, i).second)
      return absl::InvalidArgumentError(absl::StrFormat(
          "node id %d appears more than once", graphNodes[i].id));

  std::vector<std::vector<size_t>> readers(graphNodes.size());
  for (size_t index = 0; index < links->elements.size(); ++index) {
    const JsonValue &link = links->elements[index];
    std::string where = absl::StrCat("link #", index, " of \"links\"");
    if (link.kind != JsonValue::Kind::Object)
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected an object"));
    absl::StatusOr<int64_t> source =
        integerField(link, schema->linkSource, where);
    if (!source.ok())
      return source.status();
    absl::StatusOr<int64_t> target =
        integerField(link, schema->linkTarget, where);
    if (!target.ok())
      return target.status();
    auto sourceIt = indexOf.find(*source), targetIt = indexOf.find(*target);
    if (sourceIt == indexOf.end() || targetIt == indexOf.end())
      return absl::InvalidArgumentError(
          absl::StrFormat("%s (%d -> %d) names a node that is not in \"nodes\"",
                          where, *source, *target));
    if (*source == *target)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is a self-loop on node %d; the graph must be acyclic", where,
          *source));
    Node &targetNode = graphNodes[targetIt->second];
    // Multigraph links between the same pair are one read of one value.
    if (std::find(targetNode.sources.begin(), targetNode.sources.end(),
                  *source) != targetNode.sources.end())
      continue;
    targetNode.sources.push_back(*source);
    graphNodes[sourceIt->second].isRead = true;
    readers[sourceIt->second].push_back(targetIt->second);
  }

  // Kahn's algorithm, smallest id first: keeps id order where the ids are
  // topological (the model graphs) and fixes the random graphs, whose sink
  // has id 1.
  std::vector<size_t> pending(graphNodes.size());
  for (size_t i = 0; i < graphNodes.size(); ++i)
    pending[i] = graphNodes[i].sources.size();
  std::priority_queue<std::pair<int64_t, size_t>,
                      std::vector<std::pair<int64_t, size_t>>, std::greater<>>
      ready;
  for (size_t i = 0; i < graphNodes.size(); ++i)
    if (pending[i] == 0)
      ready.push({graphNodes[i].id, i});
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t node = ready.top().second;
    ready.pop();
    order.push_back(node);
    for (size_t reader : readers[node])
      if (--pending[reader] == 0)
        ready.push({graphNodes[reader].id, reader});
  }
  if (order.size() != graphNodes.size()) {
    for (size_t i = 0; i < graphNodes.size(); ++i)
      if (pending[i] != 0)
        return absl::InvalidArgumentError(absl::StrFormat(
            "the links form a cycle through node %d; a training graph must "
            "be acyclic",
            graphNodes[i].id));
  }

  Graph graph;
  std::map<int64_t, ValueId> valueOf;
  for (size_t index : order) {
    Node &node = graphNodes[index];
    GraphOp op;
    op.name = node.name;
    op.kind = "checkmate.node";
    op.computeClass = ComputeClass::Other;
    op.fixedTimeUs = node.costUs;
    op.phase = node.phase;
    std::sort(node.sources.begin(), node.sources.end());
    for (int64_t source : node.sources)
      op.operands.push_back(valueOf.at(source));
    if (node.parameterBytes > 0)
      op.operands.push_back(graph.addInput(
          absl::StrCat(node.name, ".param"),
          TensorType{{node.parameterBytes}, DType::I8}, InputRole::Parameter));
    absl::StatusOr<OpId> added =
        graph.addOp(std::move(op), {TensorType{{node.outputBytes}, DType::I8}},
                    {node.name});
    if (!added.ok())
      return added.status();
    ValueId result = graph.op(*added).results.front();
    valueOf[node.id] = result;
    if (!node.isRead)
      graph.markOutput(result, node.phase == Phase::Backward
                                   ? OutputRole::Gradient
                                   : OutputRole::Output);
  }
  return graph;
}

} // namespace remat
