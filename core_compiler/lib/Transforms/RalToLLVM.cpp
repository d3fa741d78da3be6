//===- RalToLLVM.cpp - ral ops -> ral_api_call(ctx, name, void **args) -------===//
//
// See Passes.td. The slot layout follows ral/include/loupe/ral/ral_api.h.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace loupe {
#define GEN_PASS_DEF_RALTOLLVM
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

static constexpr llvm::StringLiteral kApiCall = "ral_api_call";

/// Stack storage for one `type` in the entry block of the function holding `op`, so a call
/// inside a loop does not grow the stack on every iteration.
static Value entryBlockAlloca(OpBuilder &b, Location loc, Operation *op, Type type) {
  Block *entry = &op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value one = b.create<LLVM::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(1));
  return b.create<LLVM::AllocaOp>(loc, LLVM::LLVMPointerType::get(b.getContext()), type, one);
}

/// Stores `value` in entry-block stack storage and returns its address.
static Value spillToStack(OpBuilder &b, Location loc, Operation *op, Value value) {
  Value slot = entryBlockAlloca(b, loc, op, value.getType());
  b.create<LLVM::StoreOp>(loc, value, slot);
  return slot;
}

/// Fills an array of `values.size()` pointers, each to a stack copy of one value: the
/// `void **` of ral_api_call's arguments and of a CPU kernel's parameters.
static Value packPointerArray(OpBuilder &b, Location loc, Operation *op, ValueRange slots) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  auto arrayTy = LLVM::LLVMArrayType::get(ptrTy, std::max<size_t>(1, slots.size()));
  Value array = entryBlockAlloca(b, loc, op, arrayTy);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Value at = b.create<LLVM::GEPOp>(loc, ptrTy, arrayTy, array,
                                     llvm::ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    b.create<LLVM::StoreOp>(loc, slot, at);
  }
  return array;
}

/// Emits `ral_api_call(ctx, name, args)` for operands `values` (already LLVM-typed, with
/// their ral-level types in `originalTypes`) and results of LLVM types `resultTypes`.
/// Returns the loaded results.
static llvm::SmallVector<Value> emitApiCall(ConversionPatternRewriter &b, Location loc,
                                            Operation *op, StringRef name, ValueRange values,
                                            TypeRange originalTypes, TypeRange resultTypes) {
  MLIRContext *ctx = b.getContext();
  auto module = op->getParentOfType<ModuleOp>();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto spill = [&](Value v) { return spillToStack(b, loc, op, v); };

  llvm::SmallVector<Value> slots;
  for (auto [value, original] : llvm::zip(values, originalTypes)) {
    auto memref = dyn_cast<MemRefType>(original);
    if (!memref) {
      slots.push_back(spill(value));
      continue;
    }
    // One slot per descriptor field: allocated, aligned, offset, sizes[N], strides[N].
    Value desc = spill(value);
    Type structTy = value.getType();
    auto field = [&](llvm::ArrayRef<LLVM::GEPArg> indices) {
      llvm::SmallVector<LLVM::GEPArg> all = {0};
      all.append(indices.begin(), indices.end());
      return b.create<LLVM::GEPOp>(loc, ptrTy, structTy, desc, all).getResult();
    };
    slots.append({field({0}), field({1}), field({2})});
    for (int32_t dim = 0; dim < memref.getRank(); ++dim)
      slots.push_back(field({3, dim}));
    for (int32_t dim = 0; dim < memref.getRank(); ++dim)
      slots.push_back(field({4, dim}));
  }
  llvm::SmallVector<Value> resultSlots;
  for (Type type : resultTypes) {
    // Zeroed, so a call the runtime rejects (unknown API) leaves a null result, not garbage.
    resultSlots.push_back(spill(b.create<LLVM::ZeroOp>(loc, type)));
    slots.push_back(resultSlots.back());
  }

  Value args = packPointerArray(b, loc, op, slots);
  auto callee = LLVM::lookupOrCreateFn(module, kApiCall, {ptrTy, ptrTy, ptrTy},
                                       LLVM::LLVMVoidType::get(ctx));
  b.create<LLVM::CallOp>(loc, callee, ValueRange{values.front(), loupe::globalStringAddress(b, loc, module, name), args});

  llvm::SmallVector<Value> results;
  for (auto [slot, type] : llvm::zip(resultSlots, resultTypes))
    results.push_back(b.create<LLVM::LoadOp>(loc, type, slot));
  return results;
}

namespace {
template <typename Op> struct RalCallLowering : ConvertOpToLLVMPattern<Op> {
  RalCallLowering(const LLVMTypeConverter &converter, StringRef device)
      : ConvertOpToLLVMPattern<Op>(converter), device(device.str()) {}
  using OpAdaptor = typename Op::Adaptor;
  std::string device; ///< "cpu" or "gpu": the device of the I/O and allocation APIs.

  /// The encoded name and the operands (context first) of one ral op.
  virtual std::string apiName(Op op) const = 0;
  virtual llvm::SmallVector<Value> operands(Op op, OpAdaptor adaptor,
                                            ConversionPatternRewriter &b) const = 0;

  LogicalResult matchAndRewrite(Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    llvm::SmallVector<Type> resultTypes;
    if (failed(this->getTypeConverter()->convertTypes(op->getResultTypes(), resultTypes)))
      return b.notifyMatchFailure(op, "result types have no LLVM form");
    llvm::SmallVector<Value> values = operands(op, adaptor, b);
    llvm::SmallVector<Type> originals = {op->getOperand(0).getType()};
    for (Value v : op->getOperands().drop_front())
      originals.push_back(v.getType());
    // recv_input/send_output carry their index as an attribute: an i64 operand at the ABI.
    while (originals.size() < values.size())
      originals.insert(originals.begin() + 1, b.getI64Type());
    auto results = emitApiCall(b, op.getLoc(), op, apiName(op), values, originals, resultTypes);
    b.replaceOp(op, results);
    return success();
  }
};

Value indexConstant(ConversionPatternRewriter &b, Location loc, int64_t index) {
  return b.create<LLVM::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(index));
}

struct RecvInputLowering : RalCallLowering<RecvInputOp> {
  using RalCallLowering::RalCallLowering;
  std::string apiName(RecvInputOp op) const override {
    return encodeApiName("ral_recv_input", device,
                         {op.getCtx().getType(), IntegerType::get(op.getContext(), 64)},
                         op.getResult().getType());
  }
  llvm::SmallVector<Value> operands(RecvInputOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &b) const override {
    return {adaptor.getCtx(), indexConstant(b, op.getLoc(), op.getIndex())};
  }
};

struct RecvOutputLowering : RalCallLowering<RecvOutputOp> {
  using RalCallLowering::RalCallLowering;
  /// The compiled shape goes along as one i64 per dim: the runtime checks the caller's buffer
  /// against it, or allocates one of it.
  std::string apiName(RecvOutputOp op) const override {
    llvm::SmallVector<Type> args = {op.getCtx().getType()};
    args.append(op.getType().getRank() + 1, IntegerType::get(op.getContext(), 64));
    return encodeApiName("ral_recv_output", device, args, op.getResult().getType());
  }
  llvm::SmallVector<Value> operands(RecvOutputOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &b) const override {
    llvm::SmallVector<Value> values = {adaptor.getCtx(), indexConstant(b, op.getLoc(), op.getIndex())};
    for (int64_t dim : op.getType().getShape())
      values.push_back(indexConstant(b, op.getLoc(), dim));
    return values;
  }
};

struct SendOutputLowering : RalCallLowering<SendOutputOp> {
  using RalCallLowering::RalCallLowering;
  std::string apiName(SendOutputOp op) const override {
    return encodeApiName("ral_send_output", device,
                         {op.getCtx().getType(), IntegerType::get(op.getContext(), 64),
                          op.getValue().getType()},
                         {});
  }
  llvm::SmallVector<Value> operands(SendOutputOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &b) const override {
    return {adaptor.getCtx(), indexConstant(b, op.getLoc(), op.getIndex()), adaptor.getValue()};
  }
};

struct DispatchLowering : RalCallLowering<DispatchOp> {
  using RalCallLowering::RalCallLowering;
  std::string apiName(DispatchOp op) const override {
    return op.getAbi() ? op.getAbi()->str() : op.encodedName();
  }
  llvm::SmallVector<Value> operands(DispatchOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &b) const override {
    llvm::SmallVector<Value> values = {adaptor.getCtx()};
    llvm::append_range(values, adaptor.getArgs());
    return values;
  }
};

/// The runtime's 1-D CPU launch (ral_api.h LOUPE_RAL_CPU_LAUNCH_1D): `ppvoid` (the kernel's
/// parameters) cannot be derived from opaque LLVM pointers, so the name is spelled out.
static constexpr llvm::StringLiteral kCpuLaunch1D =
    "ral_cpu_launch_1d___cpu___pvoid_pvoid_i64_i64_pvoid_ppvoid___void";

/// The C type of a kernel's entry point: `(ctx, begin, end, void **params)`.
static FunctionType kernelAbiType(MLIRContext *ctx) {
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto index = IndexType::get(ctx);
  return FunctionType::get(ctx, {ptrTy, index, index, ptrTy}, {});
}

/// The name of the C entry point of kernel `name`.
static std::string kernelAbiName(StringRef name) { return (name + "_abi").str(); }

/// A kernel parameter passed as its bare aligned pointer: a memref whose shape, strides and
/// offset are all static, so the kernel rebuilds the descriptor from the pointer alone.
static bool isBarePointerParam(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return false;
  int64_t offset;
  llvm::SmallVector<int64_t> strides;
  return succeeded(getStridesAndOffset(memref, strides, offset)) &&
         !ShapedType::isDynamic(offset) && llvm::none_of(strides, ShapedType::isDynamic);
}

/// The `void **params` of a kernel launch: params[i] points to a stack copy of argument i,
/// the aligned pointer of a bare-pointer memref, else the whole (LLVM-typed) value.
static Value packKernelParams(OpBuilder &b, Location loc, Operation *op, ValueRange args,
                              ValueRange originals) {
  llvm::SmallVector<Value> slots;
  for (auto [arg, original] : llvm::zip(args, originals))
    slots.push_back(spillToStack(b, loc, op,
                                 isBarePointerParam(original.getType())
                                     ? MemRefDescriptor(arg).alignedPtr(b, loc)
                                     : arg));
  return packPointerArray(b, loc, op, slots);
}

/// ral.cpu_launch -> ral_cpu_launch_1d(ctx, kernel name, size, block, &kernel_abi, params),
/// params[i] pointing to a stack copy of argument i: the aligned pointer of a bare-pointer
/// memref, else the whole (LLVM-typed) value.
struct CpuLaunchLowering : ConvertOpToLLVMPattern<CpuLaunchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CpuLaunchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    Value params = packKernelParams(b, loc, op, adaptor.getArgs(), op.getArgs());
    Value kernel = b.create<func::ConstantOp>(
        loc, kernelAbiType(ctx), FlatSymbolRefAttr::get(ctx, kernelAbiName(op.getKernel())));
    Value kernelPtr = b.create<UnrealizedConversionCastOp>(loc, ptrTy, kernel).getResult(0);
    Value name = loupe::globalStringAddress(b, loc, op->getParentOfType<ModuleOp>(),
                                            op.getKernel());
    auto i64 = b.getI64Type();
    emitApiCall(b, loc, op, kCpuLaunch1D,
                {adaptor.getCtx(), name, adaptor.getSize(), adaptor.getBlock(), kernelPtr, params},
                {ContextType::get(ctx), ptrTy, i64, i64, ptrTy, ptrTy}, {});
    b.eraseOp(op);
    return success();
  }
};

/// Prepares outlined kernel `kernel(ctx, begin, end, args...)` for the runtime:
/// - bare-pointer memref arguments become `!llvm.ptr` (LLVM `noalias` where the outliner set
///   `ral.noalias`) and the descriptor is rebuilt at entry;
/// - a private `<kernel>_abi(ctx, begin, end, void **params)` loads every argument from its
///   slot and calls the kernel, which LLVM then inlines, keeping `noalias` as alias scopes.
static void buildKernelAbi(func::FuncOp kernel, const LLVMTypeConverter &converter) {
  MLIRContext *ctx = kernel.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  Location loc = kernel.getLoc();
  Block &entry = kernel.front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  llvm::SmallVector<Type> originals(kernel.getArgumentTypes());
  for (unsigned i = 3; i < entry.getNumArguments(); ++i) {
    BlockArgument arg = entry.getArgument(i);
    auto memref = dyn_cast<MemRefType>(arg.getType());
    if (!isBarePointerParam(arg.getType()))
      continue;
    bool noAlias = kernel.getArgAttr(i, "ral.noalias") != nullptr;
    kernel.removeArgAttr(i, b.getStringAttr("ral.noalias"));
    BlockArgument pointer = entry.insertArgument(i + 1, ptrTy, arg.getLoc());
    Value desc = MemRefDescriptor::fromStaticShape(b, loc, converter, memref, pointer);
    arg.replaceAllUsesWith(b.create<UnrealizedConversionCastOp>(loc, memref, desc).getResult(0));
    entry.eraseArgument(i);
    if (noAlias)
      kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
  }
  kernel.setFunctionType(FunctionType::get(ctx, entry.getArgumentTypes(), {}));

  // <kernel>_abi: load each argument from params[i - 3] and call the kernel.
  OpBuilder top(kernel);
  auto abi = top.create<func::FuncOp>(loc, kernelAbiName(kernel.getSymName()),
                                      kernelAbiType(ctx));
  abi.setPrivate();
  Block *body = abi.addEntryBlock();
  b.setInsertionPointToStart(body);
  llvm::SmallVector<Value> args(body->getArguments().take_front(3));
  args[0] = b.create<UnrealizedConversionCastOp>(loc, originals[0], args[0]).getResult(0);
  for (unsigned i = 3; i < originals.size(); ++i) {
    Value at = b.create<LLVM::GEPOp>(loc, ptrTy, ptrTy, body->getArgument(3),
                                     llvm::ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i - 3)});
    Value slot = b.create<LLVM::LoadOp>(loc, ptrTy, at);
    Type passed = kernel.getArgument(i).getType();
    Value value = b.create<LLVM::LoadOp>(loc, converter.convertType(passed), slot);
    if (value.getType() != passed)
      value = b.create<UnrealizedConversionCastOp>(loc, passed, value).getResult(0);
    args.push_back(value);
  }
  b.create<func::CallOp>(loc, kernel, args);
  b.create<func::ReturnOp>(loc);
}

/// Set on functions whose allocations all go through the runtime's allocator.
constexpr llvm::StringLiteral kRalAllocations = "ral.allocations";
/// Set on functions that take the context (their signatures change during the conversion).
constexpr llvm::StringLiteral kRalContext = "ral.takes_context";

/// The context of the function holding `op`, when its allocations go through the RAL (or,
/// without `requireRalAllocations`, whenever it takes the context).
Value allocationContext(Operation *op, ConversionPatternRewriter &b,
                        bool requireRalAllocations = true) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || !func->hasAttr(requireRalAllocations ? kRalAllocations : kRalContext))
    return nullptr;
  return b.getRemappedValue(func.getArgument(0));
}

/// Bytes of a statically shaped memref (at least one byte per element).
static int64_t byteSize(MemRefType type) {
  return type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// A pattern whose RAL calls are those of one device ("cpu" or "gpu").
template <typename Op> struct DeviceLowering : ConvertOpToLLVMPattern<Op> {
  DeviceLowering(const LLVMTypeConverter &converter, StringRef device)
      : ConvertOpToLLVMPattern<Op>(converter), device(device.str()) {}
  std::string device;
  std::string api(StringRef prefix, StringRef signature) const {
    return (prefix + "___" + device + "___" + signature).str();
  }
};

/// memref.alloc -> ral_alloc(ctx, bytes): the CPU driver's caching allocator (64-byte
/// aligned) or stream-ordered device memory.
struct AllocLowering : DeviceLowering<memref::AllocOp> {
  using DeviceLowering::DeviceLowering;
  LogicalResult matchAndRewrite(memref::AllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value ctx = allocationContext(op, b);
    MemRefType type = op.getType();
    if (!ctx)
      return b.notifyMatchFailure(op, "allocations of this function stay with malloc");
    Location loc = op.getLoc();
    Value size = b.create<LLVM::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(byteSize(type)));
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    Value memory = emitApiCall(b, loc, op, api("ral_alloc", "pvoid_i64___pvoid"), {ctx, size},
                               {ContextType::get(b.getContext()), b.getI64Type()}, {ptrTy})[0];
    b.replaceOp(op, MemRefDescriptor::fromStaticShape(b, loc, *getTypeConverter(), type, memory)
                        .operator Value());
    return success();
  }
};

/// memref.dealloc -> ral_dealloc(ctx, allocated pointer).
struct DeallocLowering : DeviceLowering<memref::DeallocOp> {
  using DeviceLowering::DeviceLowering;
  LogicalResult matchAndRewrite(memref::DeallocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value ctx = allocationContext(op, b);
    if (!ctx)
      return b.notifyMatchFailure(op, "allocations of this function stay with malloc");
    Location loc = op.getLoc();
    Value pointer = MemRefDescriptor(adaptor.getMemref()).allocatedPtr(b, loc);
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    emitApiCall(b, loc, op, api("ral_dealloc", "pvoid_pvoid___void"), {ctx, pointer},
                {ContextType::get(b.getContext()), ptrTy}, {});
    b.eraseOp(op);
    return success();
  }
};

/// Replaces `op`, whose result is a statically shaped memref, by the descriptor of the pointer
/// the RAL API `api` returns for (ctx, `source`, the result's byte size): the two constants.
static void replaceByApiPointer(ConversionPatternRewriter &b, Operation *op,
                                const LLVMTypeConverter &converter, StringRef api, Value ctx,
                                Value source) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(op->getResult(0).getType());
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value bytes = b.create<LLVM::ConstantOp>(loc, b.getI64Type(), byteSize(type));
  Value pointer = emitApiCall(b, loc, op, api, {ctx, source, bytes},
                              {ContextType::get(b.getContext()), source.getType(), b.getI64Type()},
                              {ptrTy})[0];
  b.replaceOp(op, MemRefDescriptor::fromStaticShape(b, loc, converter, type, pointer)
                      .operator Value());
}

/// ral.constant -> ral_constant(ctx, offset, bytes): the constant's bytes in the artifact's
/// weight blob, which the runtime mapped at load.
struct ConstantLowering : ConvertOpToLLVMPattern<ConstantOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value offset = b.create<LLVM::ConstantOp>(op.getLoc(), b.getI64Type(),
                                              static_cast<int64_t>(op.getOffset()));
    replaceByApiPointer(b, op, *getTypeConverter(), "ral_constant___cpu___pvoid_i64_i64___pvoid",
                        adaptor.getCtx(), offset);
    return success();
  }
};

/// ral.check -> ral_check(ctx, condition, message): the runtime fails the execution with the
/// message when the condition is false.
struct CheckLowering : ConvertOpToLLVMPattern<CheckOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CheckOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto module = op->getParentOfType<ModuleOp>();
    std::string text = op.getMessage().str() + " (at " + loupe::describeLoc(op.getLoc()) + ")";
    Value message = loupe::globalStringAddress(b, op.getLoc(), module, text);
    Value condition = b.create<LLVM::ZExtOp>(op.getLoc(), b.getI8Type(), adaptor.getCondition());
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    emitApiCall(b, op.getLoc(), op, "ral_check___cpu___pvoid_i8_pvoid___void",
                {adaptor.getCtx(), condition, message},
                {ContextType::get(b.getContext()), b.getI8Type(), ptrTy}, {});
    b.eraseOp(op);
    return success();
  }
};

/// ral.device_constant -> ral_constant(ctx, host aligned pointer, bytes): the context's device
/// copy of the constant.
struct DeviceConstantLowering : ConvertOpToLLVMPattern<DeviceConstantOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(DeviceConstantOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value host = MemRefDescriptor(adaptor.getHost()).alignedPtr(b, op.getLoc());
    replaceByApiPointer(b, op, *getTypeConverter(), "ral_constant___gpu___pvoid_pvoid_i64___pvoid",
                        adaptor.getCtx(), host);
    return success();
  }
};

/// The runtime's GPU launch (ral_api.h LOUPE_RAL_KERNEL_LAUNCH_GPU).
static constexpr llvm::StringLiteral kKernelLaunch =
    "ral_kernel_launch___gpu___pvoid_pvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_ppvoid___void";

/// gpu.launch_func -> ral_kernel_launch(ctx, PTX, PTX bytes, kernel name, grid, block, shared
/// memory bytes, params), params[i] pointing to a copy of the aligned pointer of a memref
/// argument or of a scalar argument.
struct LaunchFuncLowering : ConvertOpToLLVMPattern<gpu::LaunchFuncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(gpu::LaunchFuncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value ctx = allocationContext(op, b, /*requireRalAllocations=*/false);
    if (!ctx)
      return b.notifyMatchFailure(op, "not in a function that takes the context");
    auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
        op, op.getKernelModuleName());
    if (!binary || binary.getObjects().empty())
      return op.emitOpError("has no gpu.binary @")
             << op.getKernelModuleName() << " (run gpu-module-to-binary first)";
    StringRef ptx = cast<gpu::ObjectAttr>(binary.getObjects()[0]).getObject().getValue();

    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(context);
    Value params =
        packKernelParams(b, loc, op, adaptor.getKernelOperands(), op.getKernelOperands());
    auto module = op->getParentOfType<ModuleOp>();
    auto i64 = b.getI64Type(), i32 = b.getI32Type();
    Value ptxSize = b.create<LLVM::ConstantOp>(loc, i64, static_cast<int64_t>(ptx.size() + 1));
    Value sharedBytes = adaptor.getDynamicSharedMemorySize()
                            ? adaptor.getDynamicSharedMemorySize()
                            : b.create<LLVM::ConstantOp>(loc, i32, b.getI32IntegerAttr(0));
    emitApiCall(b, loc, op, kKernelLaunch,
                {ctx, loupe::globalStringAddress(b, loc, module, ptx), ptxSize,
                 loupe::globalStringAddress(b, loc, module, op.getKernelName().getValue()),
                 adaptor.getGridSizeX(), adaptor.getGridSizeY(), adaptor.getGridSizeZ(),
                 adaptor.getBlockSizeX(), adaptor.getBlockSizeY(), adaptor.getBlockSizeZ(),
                 sharedBytes, params},
                {ContextType::get(context), ptrTy, i64, ptrTy, i64, i64, i64, i64, i64, i64, i32,
                 ptrTy},
                {});
    b.eraseOp(op);
    return success();
  }
};

/// Allocations go through the RAL in functions that take a context and allocate only
/// statically shaped buffers; every buffer is then freed by the allocator that made it.
void markRalAllocations(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (func.isExternal() || func.getNumArguments() == 0 ||
        !isa<ContextType>(func.getArgument(0).getType()))
      return;
    func->setAttr(kRalContext, UnitAttr::get(func.getContext()));
    bool allStatic = true;
    func.walk([&](memref::AllocOp alloc) { allStatic &= alloc.getType().hasStaticShape(); });
    if (allStatic)
      func->setAttr(kRalAllocations, UnitAttr::get(func.getContext()));
  });
}

struct RalToLLVMPass : loupe::impl::RalToLLVMBase<RalToLLVMPass> {
  using RalToLLVMBase::RalToLLVMBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    converter.addConversion([ctx](ContextType) { return LLVM::LLVMPointerType::get(ctx); });

    // Signatures change only where the context appears: converting every block argument
    // with the LLVM converter (index -> i64) would break the blocks of lowered loops.
    TypeConverter signatures;
    signatures.addConversion([](Type type) { return type; });
    signatures.addConversion([ctx](ContextType) { return LLVM::LLVMPointerType::get(ctx); });

    RewritePatternSet patterns(ctx);
    patterns.add<RecvInputLowering, RecvOutputLowering, SendOutputLowering, DispatchLowering, AllocLowering,
                 DeallocLowering>(converter, device);
    patterns.add<CpuLaunchLowering, ConstantLowering, DeviceConstantLowering, LaunchFuncLowering,
                 CheckLowering>(converter);
    markRalAllocations(getOperation());
    // Kernels first get their C entry points; the context is converted with every signature.
    llvm::SetVector<StringRef> kernels;
    getOperation().walk([&](CpuLaunchOp launch) { kernels.insert(launch.getKernel()); });
    for (StringRef name : kernels)
      if (auto kernel = getOperation().lookupSymbol<func::FuncOp>(name))
        buildKernelAbi(kernel, converter);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, signatures);
    populateCallOpTypeConversionPattern(patterns, signatures);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<RalDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    auto hasContext = [](TypeRange types) {
      return llvm::any_of(types, [](Type t) { return isa<ContextType>(t); });
    };
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return !hasContext(f.getArgumentTypes()) && !hasContext(f.getResultTypes());
    });
    target.addDynamicallyLegalOp<func::CallOp>(
        [&](func::CallOp c) { return !hasContext(c.getOperandTypes()); });
    target.addDynamicallyLegalOp<memref::AllocOp, memref::DeallocOp>([](Operation *op) {
      auto func = op->getParentOfType<func::FuncOp>();
      return !func || !func->hasAttr(kRalAllocations);
    });
    target.addIllegalOp<gpu::LaunchFuncOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
    getOperation().walk([](func::FuncOp func) {
      func->removeAttr(kRalAllocations);
      func->removeAttr(kRalContext);
    });
    // The kernels' PTX now lives in the launches' globals.
    for (auto binary : llvm::make_early_inc_range(getOperation().getOps<gpu::BinaryOp>()))
      binary.erase();
    getOperation()->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};
} // namespace
