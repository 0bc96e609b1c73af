//===- CostModel.cpp - Roofline cost model per target ---------------------===//
//
// Part of remat. Target presets (sources in docs/Planner.md), a strict little
// JSON reader for overrides, and the per-op roofline.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/CostModel.h"

#include "FlatGraph.h"
#include "StringUtil.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>

namespace remat {

namespace {

constexpr double kTera = 1e12;
/// defaultExchangeRate: a microsecond of recompute time is worth the bytes
/// the target's memory moves in this many microseconds.
constexpr double kExchangeUs = 1;

/// Dense (no structured sparsity) datasheet numbers. See docs/Planner.md for
/// the documents they come from.
TargetSpec makeH100() {
  TargetSpec spec;
  spec.name = "h100";
  spec.matmulFlopsF64 = 67 * kTera;    // FP64 Tensor Core
  spec.matmulFlopsF32 = 494.7 * kTera; // TF32 Tensor Core (989.4 sparse)
  spec.matmulFlops16 = 989.4 * kTera;  // BF16/FP16 Tensor Core
  spec.matmulFlopsI8 = 1978.9 * kTera; // INT8 Tensor Core
  spec.vectorFlopsF64 = 34 * kTera;
  spec.vectorFlopsF32 = 67 * kTera;
  spec.vectorFlops16 = 133.8 * kTera; // non-tensor FP16/BF16 (whitepaper)
  spec.memoryBandwidthBytesPerSecond = 3.35 * kTera; // HBM3
  spec.launchOverheadUs = 4;
  return spec;
}

TargetSpec makeH200() {
  // Same GH100 compute as the H100 SXM; HBM3e memory.
  TargetSpec spec = makeH100();
  spec.name = "h200";
  spec.memoryBandwidthBytesPerSecond = 4.8 * kTera;
  return spec;
}

TargetSpec makeA100() {
  TargetSpec spec;
  spec.name = "a100";
  spec.matmulFlopsF64 = 19.5 * kTera;
  spec.matmulFlopsF32 = 156 * kTera; // TF32
  spec.matmulFlops16 = 312 * kTera;
  spec.matmulFlopsI8 = 624 * kTera;
  spec.vectorFlopsF64 = 9.7 * kTera;
  spec.vectorFlopsF32 = 19.5 * kTera;
  spec.vectorFlops16 = 39 * kTera; // BF16 non-tensor (FP16 is 78)
  spec.memoryBandwidthBytesPerSecond = 2.039 * kTera; // 80 GB SXM, HBM2e
  spec.launchOverheadUs = 4;
  return spec;
}

TargetSpec makeMI300X() {
  TargetSpec spec;
  spec.name = "mi300x";
  spec.matmulFlopsF64 = 163.4 * kTera;
  spec.matmulFlopsF32 = 653.7 * kTera; // TF32 matrix
  spec.matmulFlops16 = 1307.4 * kTera;
  spec.matmulFlopsI8 = 2614.9 * kTera;
  spec.vectorFlopsF64 = 81.7 * kTera;
  spec.vectorFlopsF32 = 163.4 * kTera;
  spec.vectorFlops16 = 163.4 * kTera; // not in the datasheet: taken as FP32
  spec.memoryBandwidthBytesPerSecond = 5.3 * kTera; // HBM3
  spec.launchOverheadUs = 5;
  return spec;
}

TargetSpec makeCpu() {
  // A nominal 32-core AVX-512 server socket at 2.0 GHz with two FMA units
  // per core: 32 * 2.0e9 * 2 units * 16 FP32 lanes * 2 FLOP = 4.1 TFLOP/s.
  // No matrix units, so matmuls run at the vector rates. 8 channels of
  // DDR5-4800 give 307.2 GB/s.
  TargetSpec spec;
  spec.name = "cpu";
  spec.vectorFlopsF32 = 4.096 * kTera;
  spec.vectorFlopsF64 = spec.vectorFlopsF32 / 2;
  spec.vectorFlops16 = spec.vectorFlopsF32 * 2; // AVX-512 BF16 dot products
  spec.matmulFlopsF64 = spec.vectorFlopsF64;
  spec.matmulFlopsF32 = spec.vectorFlopsF32;
  spec.matmulFlops16 = spec.vectorFlops16;
  spec.matmulFlopsI8 = spec.vectorFlopsF32 * 4; // VNNI
  spec.memoryBandwidthBytesPerSecond = 307.2e9;
  spec.launchOverheadUs = 1; // framework dispatch of one op
  return spec;
}

//===----------------------------------------------------------------------===//
// A strict reader for one flat JSON object of numbers and strings.
//===----------------------------------------------------------------------===//

struct JsonField {
  std::string key;
  bool isString = false;
  std::string text; // the string, or the number's spelling
  double number = 0;
  size_t line = 0, column = 0;
};

class FlatJsonReader {
public:
  explicit FlatJsonReader(std::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<JsonField>> read() {
    std::vector<JsonField> fields;
    skipSpace();
    if (!consume('{'))
      return error("expected '{' to start the target object");
    skipSpace();
    if (consume('}'))
      return finish(std::move(fields));
    while (true) {
      skipSpace();
      JsonField field;
      field.line = line_;
      field.column = column_;
      if (peek() != '"')
        return error("expected a field name in double quotes");
      absl::StatusOr<std::string> key = readString();
      if (!key.ok())
        return key.status();
      field.key = *key;
      skipSpace();
      if (!consume(':'))
        return error(
            absl::StrCat("expected ':' after field name \"", field.key, "\""));
      skipSpace();
      if (peek() == '"') {
        absl::StatusOr<std::string> value = readString();
        if (!value.ok())
          return value.status();
        field.isString = true;
        field.text = *value;
      } else {
        absl::Status status = readNumber(field);
        if (!status.ok())
          return status;
      }
      fields.push_back(std::move(field));
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        return finish(std::move(fields));
      return error("expected ',' or '}' after a field value");
    }
  }

private:
  absl::StatusOr<std::vector<JsonField>> finish(std::vector<JsonField> fields) {
    skipSpace();
    if (pos_ != text_.size())
      return error("unexpected text after the closing '}'");
    return fields;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      advance();
      return true;
    }
    return false;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      advance();
  }
  absl::Status error(std::string_view message) const {
    return absl::InvalidArgumentError(absl::StrFormat(
        "target JSON, line %d, column %d: %s", line_, column_, message));
  }

  absl::StatusOr<std::string> readString() {
    advance(); // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size())
        return error("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return error("control character inside a string; escape it");
      if (c != '\\') {
        out.push_back(c);
        advance();
        continue;
      }
      advance();
      if (pos_ >= text_.size())
        return error("unterminated escape sequence");
      char escape = text_[pos_];
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out.push_back(escape);
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      default:
        return error(absl::StrCat("unsupported escape '\\",
                                  std::string(1, escape),
                                  "' (target names are plain ASCII)"));
      }
      advance();
    }
  }

  /// JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  absl::Status readNumber(JsonField &field) {
    size_t start = pos_;
    auto digits = [&] {
      size_t before = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        advance();
      return pos_ > before;
    };
    bool ok = true;
    consume('-');
    if (peek() == '0')
      advance();
    else
      ok = digits();
    if (ok && consume('.'))
      ok = digits();
    if (ok && (peek() == 'e' || peek() == 'E')) {
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      ok = digits();
    }
    // A number must end at a delimiter ("12abc" and "1.5.2" are bad).
    if (ok && pos_ < text_.size() &&
        !(text_[pos_] == ',' || text_[pos_] == '}' || text_[pos_] == ' ' ||
          text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ok = false;
    if (!ok || pos_ == start) {
      size_t end = pos_;
      while (end < text_.size() && text_[end] != ',' && text_[end] != '}' &&
             text_[end] != '\n')
        ++end;
      return absl::InvalidArgumentError(absl::StrFormat(
          "target JSON, line %d, column %d: field \"%s\" has the value '%s', "
          "which is not a JSON number or string (write e.g. 3.35e12)",
          field.line, field.column, field.key,
          text_.substr(start, std::max(end, pos_ + 1) - start)));
    }
    field.text = std::string(text_.substr(start, pos_ - start));
    errno = 0;
    field.number = std::strtod(field.text.c_str(), nullptr);
    if (errno == ERANGE || !std::isfinite(field.number))
      return absl::InvalidArgumentError(absl::StrFormat(
          "target JSON, line %d, column %d: field \"%s\": %s is out of range",
          field.line, field.column, field.key, field.text));
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1, column_ = 1;
};

struct NumericField {
  std::string_view key;
  double TargetSpec::*member;
  bool mustBePositive;
  bool required = true; // without a base
};

constexpr std::array<NumericField, 10> kNumericFields = {{
    {"matmul_flops_f64", &TargetSpec::matmulFlopsF64, true},
    {"matmul_flops_f32", &TargetSpec::matmulFlopsF32, true},
    {"matmul_flops_16", &TargetSpec::matmulFlops16, true},
    {"matmul_flops_i8", &TargetSpec::matmulFlopsI8, true},
    {"vector_flops_f64", &TargetSpec::vectorFlopsF64, true},
    {"vector_flops_f32", &TargetSpec::vectorFlopsF32, true},
    {"vector_flops_16", &TargetSpec::vectorFlops16, true},
    {"memory_bandwidth", &TargetSpec::memoryBandwidthBytesPerSecond, true},
    {"launch_overhead_us", &TargetSpec::launchOverheadUs, false},
    {"exchange_rate", &TargetSpec::exchangeRateBytesPerUs, false, false},
}};

std::string allFieldNames() {
  std::vector<absl::string_view> names = {"name", "base"};
  for (const NumericField &field : kNumericFields)
    names.push_back(asAbsl(field.key));
  names.push_back("fuses");
  names.push_back("allocation_granularity");
  return absl::StrJoin(names, ", ");
}

} // namespace

std::string_view allTargetNames() { return "h100, h200, a100, mi300x, cpu"; }

double defaultExchangeRate(const TargetSpec &target) {
  return target.memoryBandwidthBytesPerSecond * 1e-6 * kExchangeUs;
}

absl::StatusOr<TargetSpec> getTargetPreset(std::string_view name) {
  std::optional<TargetSpec> spec;
  if (name == "h100")
    spec = makeH100();
  else if (name == "h200")
    spec = makeH200();
  else if (name == "a100")
    spec = makeA100();
  else if (name == "mi300x")
    spec = makeMI300X();
  else if (name == "cpu")
    spec = makeCpu();
  if (spec) {
    spec->exchangeRateBytesPerUs = defaultExchangeRate(*spec);
    return *spec;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown target '", asAbsl(name),
                   "'; valid targets: ", asAbsl(allTargetNames()),
                   " (or a JSON file, see docs/Planner.md)"));
}

absl::StatusOr<TargetSpec> parseTargetJson(std::string_view json) {
  absl::StatusOr<std::vector<JsonField>> fields = FlatJsonReader(json).read();
  if (!fields.ok())
    return fields.status();
  auto where = [](const JsonField &field) {
    return absl::StrFormat("target JSON, line %d, column %d: ", field.line,
                           field.column);
  };
  // Check names, duplicates and kinds first, so a typo is reported even when
  // the base is missing.
  std::map<std::string, const JsonField *> byKey;
  for (const JsonField &field : *fields) {
    bool known = field.key == "name" || field.key == "base" ||
                 field.key == "fuses" || field.key == "allocation_granularity";
    for (const NumericField &numeric : kNumericFields)
      known |= numeric.key == field.key;
    if (!known)
      return absl::InvalidArgumentError(
          absl::StrCat(where(field), "unknown field \"", field.key,
                       "\"; valid fields: ", allFieldNames()));
    if (byKey.count(field.key))
      return absl::InvalidArgumentError(absl::StrCat(
          where(field), "field \"", field.key, "\" is given twice"));
    byKey[field.key] = &field;
    bool wantsString = field.key == "name" || field.key == "base";
    if (wantsString && !field.isString)
      return absl::InvalidArgumentError(
          absl::StrCat(where(field), "field \"", field.key,
                       "\" must be a string, e.g. \"h100\""));
    if (!wantsString && field.isString)
      return absl::InvalidArgumentError(
          absl::StrCat(where(field), "field \"", field.key,
                       "\" must be a number, not \"", field.text, "\""));
  }
  TargetSpec spec;
  bool hasBase = byKey.count("base") != 0;
  if (hasBase) {
    const JsonField &base = *byKey["base"];
    absl::StatusOr<TargetSpec> preset = getTargetPreset(base.text);
    if (!preset.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(where(base), "unknown base \"", base.text,
                       "\"; valid bases: ", asAbsl(allTargetNames())));
    spec = *preset;
    spec.name = absl::StrCat(base.text, "-custom");
  } else {
    spec.name = "custom";
  }
  bool givesExchangeRate = false;
  for (const NumericField &numeric : kNumericFields) {
    auto it = byKey.find(std::string(numeric.key));
    if (it == byKey.end()) {
      if (!hasBase && numeric.required)
        return absl::InvalidArgumentError(absl::StrCat(
            "target JSON: field \"", asAbsl(numeric.key),
            "\" is missing; give every numeric field or a \"base\" preset (",
            asAbsl(allTargetNames()), ") to start from"));
      continue;
    }
    const JsonField &field = *it->second;
    if (field.number < 0 || (numeric.mustBePositive && field.number == 0))
      return absl::InvalidArgumentError(
          absl::StrCat(where(field), "field \"", field.key, "\" is ",
                       field.text, "; it must be ",
                       numeric.mustBePositive ? "positive" : "non-negative"));
    spec.*numeric.member = field.number;
    givesExchangeRate |= numeric.member == &TargetSpec::exchangeRateBytesPerUs;
  }
  if (auto it = byKey.find("fuses"); it != byKey.end()) {
    const JsonField &field = *it->second;
    if (field.number != 0 && field.number != 1)
      return absl::InvalidArgumentError(absl::StrCat(
          where(field), "field \"fuses\" is ", field.text,
          "; it must be 1 (code for the target fuses elementwise ops into "
          "their readers) or 0 (eager execution: one kernel per op)"));
    spec.fusesPointwise = field.number == 1;
  }
  if (auto it = byKey.find("allocation_granularity"); it != byKey.end()) {
    const JsonField &field = *it->second;
    // Up to 1 GiB: a granularity is an allocator's rounding, not a size.
    if (!(field.number >= 1 && field.number <= double(int64_t(1) << 30)) ||
        field.number != std::floor(field.number))
      return absl::InvalidArgumentError(absl::StrCat(
          where(field), "field \"allocation_granularity\" is ", field.text,
          "; it must be a whole number of bytes from 1 (no rounding) to "
          "1073741824, e.g. 512 for PyTorch's CUDA caching allocator"));
    spec.allocationGranularityBytes = static_cast<int64_t>(field.number);
  }
  // The rate follows the memory it is derived from, unless given.
  if (!givesExchangeRate)
    spec.exchangeRateBytesPerUs = defaultExchangeRate(spec);
  if (auto it = byKey.find("name"); it != byKey.end()) {
    if (it->second->text.empty())
      return absl::InvalidArgumentError(
          absl::StrCat(where(*it->second), "field \"name\" is empty"));
    spec.name = it->second->text;
  }
  // What the planner checks of any target (the name's characters, among
  // others), here too: the error then names the file.
  if (absl::Status valid = validateTarget(spec); !valid.ok())
    return valid;
  return spec;
}

absl::Status validateTarget(const TargetSpec &target) {
  // The name is printed in the text report, one field per line: a control
  // character (a newline) broke its lines before 2026-12-07.
  for (char c : target.name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return absl::InvalidArgumentError(absl::StrCat(
          "target name '", absl::CEscape(target.name),
          "' holds a control character; give a name of printable text"));
  for (const NumericField &numeric : kNumericFields) {
    const double value = target.*numeric.member;
    if (std::isfinite(value) && value >= 0 &&
        !(numeric.mustBePositive && value == 0))
      continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", target.name, "': ", asAbsl(numeric.key), " is ", value,
        "; it must be a finite ",
        numeric.mustBePositive ? "positive" : "non-negative", " number"));
  }
  if (target.allocationGranularityBytes < 1 ||
      target.allocationGranularityBytes > (int64_t(1) << 30))
    return absl::InvalidArgumentError(
        absl::StrCat("target '", target.name, "': allocation granularity is ",
                     target.allocationGranularityBytes,
                     " bytes; it must be from 1 (no rounding) to 1073741824"));
  return absl::OkStatus();
}

int64_t CostModel::allocatedBytes(int64_t bytes) const {
  const int64_t granularity = target_.allocationGranularityBytes;
  if (granularity <= 1 || bytes <= 0 || bytes % granularity == 0)
    return bytes;
  // Tensor bytes saturate at INT64_MAX (TensorType::bytes), and so does the
  // rounding: a saturated size stays saturated instead of overflowing.
  const int64_t up = granularity - bytes % granularity;
  return bytes > std::numeric_limits<int64_t>::max() - up
             ? std::numeric_limits<int64_t>::max()
             : bytes + up;
}

double CostModel::peakFlops(ComputeClass computeClass, DType dtype) const {
  bool matrix = computeClass == ComputeClass::Matmul ||
                computeClass == ComputeClass::Conv ||
                computeClass == ComputeClass::Attention;
  switch (dtype) {
  case DType::F64:
  case DType::C128: // an op's FLOPs count the real arithmetic
    return matrix ? target_.matmulFlopsF64 : target_.vectorFlopsF64;
  case DType::F32:
  case DType::C64:
    return matrix ? target_.matmulFlopsF32 : target_.vectorFlopsF32;
  case DType::F16:
  case DType::BF16:
    return matrix ? target_.matmulFlops16 : target_.vectorFlops16;
  case DType::I8:
  case DType::I1:
    return matrix ? target_.matmulFlopsI8 : target_.vectorFlopsF32;
  case DType::I32:
  case DType::I64:
    return target_.vectorFlopsF32;
  }
  return target_.vectorFlopsF32;
}

namespace {
double rooflineUs(double flops, double bytes, double peakFlops,
                  double bandwidth) {
  double computeSeconds = peakFlops > 0 ? flops / peakFlops : 0;
  double memorySeconds = bandwidth > 0 ? bytes / bandwidth : 0;
  return std::max(computeSeconds, memorySeconds) * 1e6;
}

/// Adds without overflowing: byte counts of huge shapes saturate.
int64_t addBytes(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b
             ? std::numeric_limits<int64_t>::max()
             : a + b;
}

/// The roofline of one op, reading operand/result bytes and dtypes through
/// `bytesOf`/`dtypeOf` so that the graph and its flat form give the same
/// doubles.
template <typename Values, typename BytesOf, typename DTypeOf>
double predictOpTime(const CostModel &model, const GraphOp &op,
                     const Values &operands, const Values &results,
                     BytesOf bytesOf, DTypeOf dtypeOf) {
  if (op.fixedTimeUs)
    return *op.fixedTimeUs;
  if (op.isView || op.computeClass == ComputeClass::View)
    return 0;
  int64_t bytes = addBytes(op.bytesRead, op.bytesWritten);
  if (bytes == 0) {
    for (ValueId operand : operands)
      bytes = addBytes(bytes, bytesOf(operand));
    for (ValueId result : results)
      bytes = addBytes(bytes, bytesOf(result));
  }
  // Matrix units run at the operand precision (bf16 x bf16 -> f32 is a bf16
  // matmul); other ops at the precision they write.
  DType dtype = DType::F32;
  if (!operands.empty())
    dtype = dtypeOf(operands.front());
  else if (!results.empty())
    dtype = dtypeOf(results.front());
  if (!results.empty() && op.computeClass != ComputeClass::Matmul &&
      op.computeClass != ComputeClass::Conv &&
      op.computeClass != ComputeClass::Attention)
    dtype = dtypeOf(results.front());
  const TargetSpec &target = model.target();
  return rooflineUs(op.flops, static_cast<double>(bytes),
                    model.peakFlops(op.computeClass, dtype),
                    target.memoryBandwidthBytesPerSecond) +
         target.launchOverheadUs;
}
} // namespace

double CostModel::predictTimeUs(const Graph &graph, OpId opId) const {
  const GraphOp &op = graph.op(opId);
  return predictOpTime(
      *this, op, op.operands, op.results,
      [&](ValueId value) { return graph.value(value).type.bytes(); },
      [&](ValueId value) { return graph.value(value).type.dtype; });
}

namespace detail {
double predictOpTimeUs(const CostModel &costModel, const Graph &graph,
                       const FlatGraph &flat,
                       const std::vector<int64_t> &valueBytes, OpId opId) {
  const GraphOp &op = graph.op(opId);
  return predictOpTime(
      costModel, op, flat.operands(opId), flat.results(opId),
      [&](ValueId value) { return valueBytes[value]; },
      [&](ValueId value) { return flat.dtype[value]; });
}
} // namespace detail

double CostModel::predictPointwiseTimeUs(double flops, int64_t bytes,
                                         DType dtype) const {
  return rooflineUs(flops, static_cast<double>(bytes),
                    peakFlops(ComputeClass::Pointwise, dtype),
                    target_.memoryBandwidthBytesPerSecond) +
         target_.launchOverheadUs;
}

} // namespace remat
