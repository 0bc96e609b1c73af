//===- GradientCheck.cpp - Finite-difference check of remat-autodiff ------===//
//
// Part of remat. See GradientCheck.h for the method and its tolerance.
//
//===----------------------------------------------------------------------===//

#include "remat/Autodiff/GradientCheck.h"

#include "remat/Autodiff/Autodiff.h"
#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/Runner/Runner.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace remat {

bool FunctionCheckResult::passed() const {
  return outputsMatch &&
         llvm::all_of(gradients, [](const GradientCheckResult &gradient) {
           return gradient.passed();
         });
}

//===----------------------------------------------------------------------===//
// Widening to f32
//===----------------------------------------------------------------------===//

namespace {

bool isNarrowFloat(Type type) { return type.isF16() || type.isBF16(); }

Type widenType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isNarrowFloat(tensor.getElementType()))
    return type;
  return RankedTensorType::get(tensor.getShape(),
                               Float32Type::get(type.getContext()));
}

/// The f32 version of a bf16 / f16 dense constant (exact: every bf16 and
/// f16 value is an f32 value).
ElementsAttr widenConstant(ElementsAttr value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || !isNarrowFloat(dense.getElementType()))
    return value;
  auto type = cast<ShapedType>(widenType(dense.getType()));
  if (dense.isSplat())
    return DenseElementsAttr::get(
        type, dense.getSplatValue<APFloat>().convertToFloat());
  SmallVector<float> values;
  for (APFloat element : dense.getValues<APFloat>())
    values.push_back(element.convertToFloat());
  return DenseElementsAttr::get(type, llvm::ArrayRef<float>(values));
}

} // namespace

LogicalResult widenFloatsToF32(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  SmallVector<Type> inputs, results;
  for (Type input : type.getInputs())
    inputs.push_back(widenType(input));
  for (Type result : type.getResults())
    results.push_back(widenType(result));
  func.setType(FunctionType::get(func.getContext(), inputs, results));
  for (BlockArgument argument : func.getArguments())
    argument.setType(widenType(argument.getType()));
  func.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      result.setType(widenType(result.getType()));
    if (auto constant = dyn_cast<ConstantOp>(op))
      constant.setValueAttr(widenConstant(constant.getValue()));
  });
  // A cast between f32 and bf16/f16 is now f32 -> f32, which the verifier
  // rejects (a cast must change the type): it is the identity in f32.
  func.walk([](CastOp cast) {
    if (cast.getInput().getType() == cast.getType()) {
      cast.getResult().replaceAllUsesWith(cast.getInput());
      cast.erase();
    }
  });
  if (failed(verify(func)))
    return func.emitError()
           << "@" << func.getSymName()
           << " does not verify once its bf16/f16 tensors are widened to "
              "f32 (an op outside the remat dialect with typed attributes?); "
              "check it without widening";
  return success();
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

namespace {

/// Half the distance from 1 to the next value of an output's float type:
/// what one rounding of that type may change.
double unitRoundoff(ElementKind kind) {
  switch (kind) {
  case ElementKind::BF16:
    return 0x1p-8;
  case ElementKind::F16:
    return 0x1p-11;
  default:
    return 0x1p-24; // f32
  }
}

/// SplitMix64, for the probe directions and positions.
struct ProbeRandom {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F32 || kind == ElementKind::F16 ||
         kind == ElementKind::BF16;
}

std::string describeType(const TensorSpec &spec) {
  std::string text = "tensor<";
  for (int64_t size : spec.shape)
    text += std::to_string(size) + "x";
  return text + getElementKindName(spec.kind).str() + ">";
}

/// Runs the forward function and reduces its outputs with the tangents:
/// L = sum_j <t_j, y_j>, accumulated in double.
struct LossEvaluation {
  double loss = 0.0;
  std::vector<HostTensor> outputs;
};

class FunctionChecker {
public:
  FunctionChecker(const Runner &runner, const JointFunctionInfo &info,
                  std::string forwardName, std::string jointName,
                  const GradientCheckOptions &options)
      : runner(runner), info(info), forwardName(std::move(forwardName)),
        jointName(std::move(jointName)), options(options) {}

  llvm::Expected<FunctionCheckResult> run();

private:
  llvm::Expected<LossEvaluation> evaluate(ArrayRef<HostTensor> inputs);
  /// The rounding allowance of fd for two evaluations (see GradientCheck.h).
  double roundingAllowance(const LossEvaluation &plus,
                           const LossEvaluation &minus) const;

  const Runner &runner;
  const JointFunctionInfo &info;
  std::string forwardName, jointName;
  const GradientCheckOptions &options;
  /// The tangent of each forward output (empty for integer outputs).
  std::vector<HostTensor> tangents;
};

llvm::Expected<LossEvaluation>
FunctionChecker::evaluate(ArrayRef<HostTensor> inputs) {
  auto outputs = runner.run(forwardName, inputs);
  if (!outputs)
    return outputs.takeError();
  LossEvaluation evaluation;
  for (auto [index, output] : llvm::enumerate(*outputs)) {
    if (info.tangentArgOfResult[index] < 0)
      continue;
    const HostTensor &tangent = tangents[index];
    for (int64_t i = 0, e = output.getNumElements(); i < e; ++i)
      evaluation.loss += tangent.get(i) * output.get(i);
  }
  evaluation.outputs = std::move(*outputs);
  return evaluation;
}

double FunctionChecker::roundingAllowance(const LossEvaluation &plus,
                                          const LossEvaluation &minus) const {
  double magnitude = 0.0;
  for (size_t index = 0; index < plus.outputs.size(); ++index) {
    if (info.tangentArgOfResult[index] < 0)
      continue;
    const HostTensor &a = plus.outputs[index], &b = minus.outputs[index];
    // The output's own type: with -no-widen a bf16 output rounds at 2^-8,
    // not f32's 2^-24 (before 2026-12-07 every narrow output failed).
    const double roundoff = unitRoundoff(a.kind);
    for (int64_t i = 0, e = a.getNumElements(); i < e; ++i)
      if (a.getBits(i) != b.getBits(i))
        magnitude += roundoff * std::fabs(tangents[index].get(i)) *
                     (std::fabs(a.get(i)) + std::fabs(b.get(i)));
  }
  return options.roundingUlps * magnitude;
}

llvm::Expected<FunctionCheckResult> FunctionChecker::run() {
  const FunctionSignature *jointSignature = runner.lookup(jointName);
  const FunctionSignature *forwardSignature = runner.lookup(forwardName);
  if (!jointSignature || !forwardSignature)
    return llvm::createStringError(
        "@" + forwardName +
        ": the runner cannot call the forward or joint function (tensor "
        "arguments and results must be ranked and statically shaped)");

  std::vector<HostTensor> jointInputs =
      makeSeededInputs(*jointSignature, options.seed);
  size_t numForwardInputs = forwardSignature->inputs.size();
  std::vector<HostTensor> primals(jointInputs.begin(),
                                  jointInputs.begin() + numForwardInputs);
  tangents.assign(info.tangentArgOfResult.size(), HostTensor());
  for (auto [index, tangentArg] : llvm::enumerate(info.tangentArgOfResult))
    if (tangentArg >= 0)
      tangents[index] = jointInputs[tangentArg];

  auto jointOutputs = runner.run(jointName, jointInputs);
  if (!jointOutputs)
    return jointOutputs.takeError();
  auto base = evaluate(primals);
  if (!base)
    return base.takeError();
  // A NaN or infinite output makes every difference NaN, which was reported
  // as a failed gradient with tolerance nan (before 2026-12-08).
  for (auto [index, output] : llvm::enumerate(base->outputs))
    for (int64_t i = 0, e = output.getNumElements(); i < e; ++i)
      if (!std::isfinite(output.get(i)))
        return llvm::createStringError(
            "@" + forwardName + ": output #" + std::to_string(index) +
            " is not finite at the seeded inputs (element " +
            std::to_string(i) + " is " + std::to_string(output.get(i)) +
            "), so finite differences cannot check the gradients: change "
            "the function (a mean or max over an empty dimension is nan or "
            "-inf) or the inputs (-seed)");

  FunctionCheckResult result;
  result.function = forwardName;
  size_t numOutputs = info.tangentArgOfResult.size();
  for (size_t index = 0; index < numOutputs; ++index) {
    TensorComparison comparison = compareTensors(
        (*jointOutputs)[index], base->outputs[index], 1e-6, 1e-5);
    result.outputMaxError =
        std::max(result.outputMaxError, comparison.maxAbsError);
    if (!comparison.sameType || comparison.toleranceFailures > 0)
      result.outputsMatch = false;
  }

  ProbeRandom random{options.seed * 0x2545F4914F6CDD1Dull + 1};
  for (auto [position, argument] : llvm::enumerate(info.gradOfArg)) {
    const HostTensor &gradient = (*jointOutputs)[numOutputs + position];
    const TensorSpec &spec = forwardSignature->inputs[argument];
    GradientCheckResult check;
    check.argument = argument;
    check.role = spec.role;
    check.type = describeType(spec);
    if (!isFloatKind(spec.kind))
      return llvm::createStringError("@" + forwardName + ": argument #" +
                                     std::to_string(argument) +
                                     " has a gradient but is not a float");

    // Probes: unit vectors (index >= 0) or a +-1 direction (index = -1).
    int64_t numElements = gradient.getNumElements();
    std::vector<int64_t> probes;
    if (numElements <= options.maxExhaustiveElements) {
      for (int64_t i = 0; i < numElements; ++i)
        probes.push_back(i);
    } else {
      for (unsigned d = 0; d < options.numDirections; ++d)
        probes.push_back(-1);
      for (unsigned p = 0; p < options.numElementProbes; ++p)
        probes.push_back(static_cast<int64_t>(random.next() % numElements));
    }

    const HostTensor &x = primals[argument];
    double worstRatio = 0.0;
    for (int64_t probe : probes) {
      std::vector<HostTensor> plusInputs(primals), minusInputs(primals);
      HostTensor &plus = plusInputs[argument], &minus = minusInputs[argument];
      for (int64_t i = 0; i < numElements; ++i) {
        double direction = 0.0;
        if (probe < 0)
          direction = (random.next() >> 63) ? 1.0 : -1.0;
        else if (i == probe)
          direction = 1.0;
        if (direction == 0.0)
          continue;
        plus.set(i, x.get(i) + options.epsilon * direction);
        minus.set(i, x.get(i) - options.epsilon * direction);
      }
      // The step as actually rounded into the input's element type.
      double derivative = 0.0;
      for (int64_t i = 0; i < numElements; ++i)
        derivative += options.gradientScale * gradient.get(i) *
                      (plus.get(i) - minus.get(i));
      auto lossPlus = evaluate(plusInputs);
      if (!lossPlus)
        return lossPlus.takeError();
      auto lossMinus = evaluate(minusInputs);
      if (!lossMinus)
        return lossMinus.takeError();
      if (!std::isfinite(lossPlus->loss) || !std::isfinite(lossMinus->loss))
        return llvm::createStringError(
            "@" + forwardName + ": the outputs are not finite one step (eps " +
            std::to_string(options.epsilon) +
            ") from the seeded value of "
            "argument #" +
            std::to_string(argument) +
            ", so finite differences cannot check its gradient there: use "
            "a smaller -eps");
      double difference = lossPlus->loss - lossMinus->loss;
      double error = std::fabs(difference - derivative);
      double tolerance =
          options.relTolerance *
              std::max(std::fabs(difference), std::fabs(derivative)) +
          roundingAllowance(*lossPlus, *lossMinus);
      double scale = 2.0 * options.epsilon;
      ++check.numProbes;
      check.maxDerivative =
          std::max(check.maxDerivative, std::fabs(derivative) / scale);
      if (!(error <= tolerance))
        ++check.failedProbes;
      // The probe reported is the one nearest its tolerance (the largest
      // error before 2026-12-07, so a FAIL could show an error below the
      // tolerance printed beside it).
      double ratio = tolerance > 0 ? error / tolerance
                     : error > 0   ? INFINITY
                                   : 0.0;
      if (!(ratio <= worstRatio) || check.numProbes == 1) {
        worstRatio = ratio;
        check.maxError = error / scale;
        check.toleranceAtMaxError = tolerance / scale;
      }
    }
    result.gradients.push_back(check);
  }
  return result;
}

/// Collects the diagnostics emitted while autodiff or widening runs, so
/// they can be returned in the llvm::Error.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          llvm::raw_string_ostream os(messages);
          os << diagnostic.getLocation() << ": " << diagnostic << "\n";
          // Notes name the value or op concerned (the op itself only with
          // -mlir-print-op-on-diagnostic).
          for (Diagnostic &note : diagnostic.getNotes())
            os << "  note: " << note << "\n";
          return success();
        }) {}
  std::string take() { return std::move(messages); }

private:
  std::string messages;
  ScopedDiagnosticHandler handler;
};

} // namespace

llvm::Expected<std::vector<FunctionCheckResult>>
checkGradients(ModuleOp module, const GradientCheckOptions &options) {
  // A step or tolerance outside these ranges makes every comparison pass
  // (eps = 0: the difference and its tolerance are 0 or NaN).
  if (!std::isfinite(options.epsilon) || options.epsilon <= 0)
    return llvm::createStringError(
        "eps=" + std::to_string(options.epsilon) +
        ": the finite-difference step must be a positive number");
  if (!std::isfinite(options.relTolerance) || options.relTolerance < 0 ||
      !std::isfinite(options.roundingUlps) || options.roundingUlps < 0)
    return llvm::createStringError(
        "rtol and rounding-ulps must be non-negative numbers");
  if (!std::isfinite(options.gradientScale))
    return llvm::createStringError("scale-gradients must be a finite number");
  // No probe compares nothing and passes (before 2026-12-07, exit 0).
  if (options.numDirections == 0 && options.numElementProbes == 0 &&
      options.maxExhaustiveElements <= 0)
    return llvm::createStringError(
        "max-exhaustive=0 with directions=0 and element-probes=0 leaves no "
        "probe, so every check would pass: give at least one");
  SmallVector<std::string> names;
  for (auto func : module.getOps<func::FuncOp>())
    if (isForwardFunction(func) &&
        (options.functions.empty() ||
         llvm::is_contained(options.functions, func.getSymName().str())))
      names.push_back(func.getSymName().str());
  for (const std::string &wanted : options.functions)
    if (!llvm::is_contained(names, wanted))
      return llvm::createStringError(
          "no remat.graph = \"forward\" function named @" + wanted);
  if (names.empty())
    return llvm::createStringError(
        "the module has no remat.graph = \"forward\" function to check");

  std::vector<FunctionCheckResult> results;
  for (const std::string &name : names) {
    // A module holding only this function (other functions may hold ops the
    // CPU lowering does not accept), then its joint function.
    OwningOpRef<ModuleOp> work = module.clone();
    func::FuncOp forward;
    for (auto func : llvm::make_early_inc_range(work->getOps<func::FuncOp>())) {
      if (func.getSymName() == name)
        forward = func;
      else
        func.erase();
    }
    DiagnosticCollector diagnostics(module.getContext());
    if (options.widenToF32 && failed(widenFloatsToF32(forward)))
      return llvm::createStringError("@" + name + ": " + diagnostics.take());
    FailureOr<JointFunctionInfo> info =
        buildJointFunction(forward, jointFunctionName(name));
    if (failed(info))
      return llvm::createStringError("@" + name + ": remat-autodiff failed:\n" +
                                     diagnostics.take());
    auto runner = Runner::create(*work);
    if (!runner)
      return llvm::createStringError(
          "@" + name + ": cannot compile for the host: " +
          llvm::toString(runner.takeError()) + diagnostics.take());
    FunctionChecker checker(**runner, *info, name, jointFunctionName(name),
                            options);
    auto checked = checker.run();
    if (!checked)
      return checked.takeError();
    results.push_back(std::move(*checked));
  }
  return results;
}

void printGradientCheckReport(llvm::raw_ostream &os,
                              ArrayRef<FunctionCheckResult> results,
                              const GradientCheckOptions &options) {
  for (const FunctionCheckResult &result : results) {
    os << "@" << result.function << ": " << result.gradients.size()
       << " gradient(s), seed " << options.seed << ", eps "
       << llvm::format("%.1e", options.epsilon) << "\n";
    os << "  outputs of the joint function "
       << (result.outputsMatch ? "match" : "DIFFER FROM")
       << " the forward function's (max |error| "
       << llvm::format("%.2e", result.outputMaxError) << ")\n";
    for (const GradientCheckResult &gradient : result.gradients) {
      os << "  grad of argument #" << gradient.argument << " (" << gradient.role
         << ", " << gradient.type << "): " << gradient.numProbes
         << " probe(s), worst |fd - ad| "
         << llvm::format("%.2e", gradient.maxError) << " (tolerance "
         << llvm::format("%.2e", gradient.toleranceAtMaxError)
         << ", derivatives up to "
         << llvm::format("%.2e", gradient.maxDerivative)
         << "): " << (gradient.passed() ? "PASS" : "FAIL") << "\n";
    }
    os << "@" << result.function << ": " << (result.passed() ? "PASS" : "FAIL")
       << "\n";
  }
}

} // namespace remat
