#include <llvm/IR/MDBuilder.h>

#include "page_emitter_impl.h"

namespace kiln::jitc {
namespace {

using jit::Op;
namespace abi = jit::abi;

abi::HelperIndex helper_of(jit::MathFn fn) {
  switch (fn) {
    case jit::MathFn::kSin: return abi::kHelperSin;
    case jit::MathFn::kCos: return abi::kHelperCos;
    case jit::MathFn::kTan: return abi::kHelperTan;
    case jit::MathFn::kAsin: return abi::kHelperAsin;
    case jit::MathFn::kAcos: return abi::kHelperAcos;
    case jit::MathFn::kAtan: return abi::kHelperAtan;
    case jit::MathFn::kExp: return abi::kHelperExp;
    case jit::MathFn::kLog: return abi::kHelperLog;
    case jit::MathFn::kLog10: return abi::kHelperLog10;
    case jit::MathFn::kFmod: return abi::kHelperFmod;
    case jit::MathFn::kPow: return abi::kHelperPow;
    case jit::MathFn::kAtan2: return abi::kHelperAtan2;
    default: return abi::kHelperCount;
  }
}

}  // namespace

namespace detail {

std::vector<std::uint16_t> Emitter::run() {
  i8_ = llvm::Type::getInt8Ty(C_);
  i32_ = llvm::Type::getInt32Ty(C_);
  i64_ = llvm::Type::getInt64Ty(C_);
  f64_ = llvm::Type::getDoubleTy(C_);
  helper_type_ = llvm::FunctionType::get(f64_, {f64_, f64_}, false);
  auto* ptr_ty = llvm::Type::getInt64PtrTy(C_);
  auto* fn_type = llvm::FunctionType::get(i64_, {llvm::Type::getInt8PtrTy(C_), i32_}, false);
  page_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, kPageFunctionName, M_);
  page_->setDSOLocal(true);  // its own address (a call compares it) is PC-relative, not through a GOT
  page_->addFnAttr(llvm::Attribute::NoUnwind);
  page_->addFnAttr("frame-pointer", "none");
  // The page's code proper takes in machine registers what a call of it would otherwise read back
  // from the context right after its caller stored it: the frame's registers, the budget count
  // (returned beside the exit), the frame count and the calls that may still nest natively (both
  // the same at every instruction of a frame: calls return to it). So a call of the running
  // function from its own first page passes them without a round trip through memory
  // (page_calls.cpp); the context's copies are still stored for the interpreter.
  result_type_ = llvm::StructType::get(C_, {i64_, i64_});
  auto* body_type =
      llvm::FunctionType::get(result_type_, {llvm::Type::getInt8PtrTy(C_), ptr_ty, i64_, i32_, i64_, i64_}, false);
  F_ = llvm::Function::Create(body_type, llvm::Function::InternalLinkage, "kiln_page_body", M_);
  F_->setCallingConv(llvm::CallingConv::Fast);
  F_->addFnAttr(llvm::Attribute::NoUnwind);
  F_->addFnAttr("frame-pointer", "none");
  ctx_ = F_->getArg(0);
  entry_arg_ = F_->getArg(3);
  frame_count_ = F_->getArg(4);
  native_left_ = F_->getArg(5);
  // Type-based alias classes: frame registers, module variables, array headers, array elements,
  // the budget counter, the element counter and the context never overlap, so LLVM may keep each in
  // registers across the others' stores (in a page a header changes only by an append's size).
  llvm::MDBuilder md(C_);
  auto* root = md.createTBAARoot("kiln");
  auto tag = [&](const char* name) {
    auto* type = md.createTBAAScalarTypeNode(name, root);
    return md.createTBAAStructTagNode(type, type, 0);
  };
  tbaa_reg_ = tag("register");
  tbaa_module_ = tag("module variable");
  tbaa_header_ = tag("array header");
  tbaa_element_ = tag("array element");
  tbaa_count_ = tag("budget counter");
  tbaa_context_ = tag("context");
  tbaa_elements_ = tag("element counter");
  tbaa_field_ = tag("record field");
  tbaa_cell_ = tag("closure and cell");

  llvm::BasicBlock* entry = llvm::BasicBlock::Create(C_, "entry", F_);
  entry_builder_.SetInsertPoint(entry);
  // The frame's registers: where the page was entered, and where they are now (a call may move them).
  regs_ = F_->getArg(1);
  regs_slot_ = entry_builder_.CreateAlloca(ptr_ty, nullptr, "regs");
  entry_builder_.CreateStore(regs_, regs_slot_);
  // The budget counter lives in a register while the page runs, returned at every exit.
  count_slot_ = entry_builder_.CreateAlloca(i64_, nullptr, "counted");
  entry_builder_.CreateStore(F_->getArg(2), count_slot_);
  // The last count a tick may reach (no budget: never stops), decided once per entry.
  auto* budget = entry_field(offsetof(abi::Context, budget), i64_);
  budget_ = entry_builder_.CreateSelect(entry_builder_.CreateICmpEQ(budget, llvm::ConstantInt::get(i64_, 0)),
                                        llvm::ConstantInt::get(i64_, ~std::uint64_t{0}), budget);
  // Where the cancellation flag is: fixed for the run, so read once per entry, not at every tick.
  cancelled_ = entry_field(offsetof(abi::Context, cancelled), i8_->getPointerTo());
  call_type_ = llvm::FunctionType::get(i32_, {llvm::Type::getInt8PtrTy(C_), i32_, i32_}, false);

  arrays_ = array_registers(words_, *shape_);
  numbers_ = number_registers(words_, *shape_);
  // Each counted loop's flags start unproven: only its FORPREP and the entries inside it set them.
  loops_ = jit::counted_loops(words_, *shape_);
  for (std::size_t l = 0; l < loops_.size(); ++l) {
    for (std::uint8_t array : loops_[l].arrays) {
      auto* flag = entry_builder_.CreateAlloca(entry_builder_.getInt1Ty(), nullptr,
                                               "proven" + std::to_string(loops_[l].prep) + "r" + std::to_string(array));
      entry_builder_.CreateStore(entry_builder_.getFalse(), flag);
      proven_[{l, array}] = flag;
    }
    for (const jit::IndexedAccess& access : loops_[l].accesses) in_range_at_[access.at] = proven_.at({l, access.array});
  }
  for (std::size_t k = 0; k < kPageWords; ++k)
    if (shape_->starts[k]) blocks_[k] = llvm::BasicBlock::Create(C_, "w" + std::to_string(k), F_);
  for (std::size_t k = 0; k < kPageWords; ++k)
    if (shape_->starts[k]) emit_instruction(k);

  finish_calls();
  // A return stores its result over the frame's first register (where the caller reads it): the
  // frame ends, nothing reads its other registers again.
  for (const ReturnSite& site : returns_) {
    B_.SetInsertPoint(site.block);
    auto* regs = current_regs(B_);
    llvm::Value* result = llvm::ConstantInt::get(i64_, 0);
    if (site.value >= 0) result = slot_bits(B_, slots_.at(site.value));
    tagged(B_.CreateStore(result, reg_ptr(B_, regs, 0)), tbaa_reg_);
    leave(abi::exit_code(int(site.k), false) | abi::kReturnedFlag, B_.CreateLoad(i64_, count_slot_));
  }
  // Every exit stores the registers the page writes that may be read from there on, then says
  // where to continue.
  const std::vector<jit::RegisterSet> live = jit::live_registers(words_, *shape_);
  for (auto& [key, block] : exits_) {
    B_.SetInsertPoint(block);
    auto* regs = current_regs(B_);
    const int target = key.first;
    const bool in_page = target >= 0 && target < int(kPageWords) && shape_->starts[std::size_t(target)];
    for (int r : written_)
      if (!in_page || live[std::size_t(target)].test(std::size_t(r)))
        tagged(B_.CreateStore(slot_bits(B_, slots_.at(r)), reg_ptr(B_, regs, r)), tbaa_reg_);
    leave(abi::exit_code(key.first, key.second), B_.CreateLoad(i64_, count_slot_));
  }
  // Entering anywhere else: back to the interpreter, nothing changed.
  llvm::BasicBlock* other = llvm::BasicBlock::Create(C_, "not_an_entry", F_);
  B_.SetInsertPoint(other);
  leave(B_.CreateOr(B_.CreateZExt(entry_arg_, i64_), llvm::ConstantInt::get(i64_, abi::kInterpretFlag)),
        B_.CreateLoad(i64_, count_slot_));
  std::vector<std::uint16_t> served;
  for (std::uint16_t e : req_.entries)
    if (e < kPageWords && shape_->starts[e]) served.push_back(e);
  // Each entry loads the registers live there: nothing else can be read before it is written.
  auto* sw = entry_builder_.CreateSwitch(entry_arg_, other, unsigned(served.size()));
  for (std::uint16_t e : served) {
    auto* enter = llvm::BasicBlock::Create(C_, "enter" + std::to_string(e), F_);
    llvm::IRBuilder<> b(enter);
    for (const auto& [r, home] : slots_)
      if (live[e].test(std::size_t(r)))
        store_slot(b, tagged(b.CreateLoad(i64_, reg_ptr(b, regs_, r)), tbaa_reg_), home);
    // Inside a counted loop the values left run from the counter's (the current value in the body;
    // at the FORLOOP one more than needed). Only from registers loaded here: where the loop's own
    // are not live, no path from here reaches its FORLOOP again, and an array not live is not read
    // again; their flags stay unproven.
    for (std::size_t l = 0; l < loops_.size(); ++l) {
      const jit::CountedLoop& counted = loops_[l];
      if (!counted.in_body(e) || !live[e].test(counted.base) || !live[e].test(counted.base + 1u) ||
          !live[e].test(counted.base + 2u))
        continue;
      prove_in_range(b, l, slot_as(b, slot(counted.base), f64_), live[e]);
    }
    b.CreateBr(blocks_[e]);
    sw->addCase(llvm::ConstantInt::get(llvm::Type::getInt32Ty(C_), e), enter);
  }
  emit_page_entry();
  return served;
}

void Emitter::leave(llvm::Value* exit, llvm::Value* count) {
  llvm::Value* result = llvm::UndefValue::get(result_type_);
  result = B_.CreateInsertValue(result, exit, 0);
  B_.CreateRet(B_.CreateInsertValue(result, count, 1));
}

void Emitter::leave(std::uint64_t exit, llvm::Value* count) { leave(llvm::ConstantInt::get(i64_, exit), count); }

void Emitter::emit_page_entry() {
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(C_, "page", page_));
  auto* ctx = page_->getArg(0);
  auto load = [&](std::size_t offset, llvm::Type* type) { return ctx_load(b, offset, type, ctx); };
  const bool checked = req_.mode == abi::JitMode::kChecked;
  auto* counter = load(offsetof(abi::Context, counted), i64_->getPointerTo());
  llvm::Value* count = llvm::ConstantInt::get(i64_, 0);
  if (checked) count = tagged(b.CreateLoad(i64_, counter), tbaa_count_);
  auto* ran = b.CreateCall(
      F_, {ctx, load(offsetof(abi::Context, regs), llvm::Type::getInt64PtrTy(C_)), count, page_->getArg(1),
           load(offsetof(abi::Context, frame_count), i64_), load(offsetof(abi::Context, native_left), i64_)});
  ran->setCallingConv(F_->getCallingConv());
  if (checked) tagged(b.CreateStore(b.CreateExtractValue(ran, 1), counter), tbaa_count_);
  b.CreateRet(b.CreateExtractValue(ran, 0));
}

void Emitter::prove_in_range(llvm::IRBuilder<>& b, std::size_t loop, llvm::Value* first,
                             const jit::RegisterSet& loaded) {
  const jit::CountedLoop& counted = loops_[loop];
  auto* limit = slot_as(b, slot(counted.base + 1), f64_);
  auto* step = slot_as(b, slot(counted.base + 2), f64_);
  auto* floor = llvm::Intrinsic::getDeclaration(&M_, llvm::Intrinsic::floor, {f64_});
  auto whole = [&](llvm::Value* x) { return b.CreateFCmpOEQ(b.CreateCall(floor, {x}), x); };
  auto* whole_values = b.CreateAnd(whole(first), whole(step));
  auto* up = b.CreateFCmpOGT(step, real(0));
  for (std::uint8_t array : counted.arrays) {
    if (!loaded.test(array)) continue;
    auto* header = b.CreateIntToPtr(slot_bits(b, slot(array)), llvm::Type::getInt64PtrTy(C_));
    auto* size = tagged(b.CreateLoad(i64_, b.CreateConstInBoundsGEP1_64(i64_, header, 1)), tbaa_header_);
    auto* end = b.CreateSIToFP(b.CreateAdd(size, llvm::ConstantInt::get(i64_, 1)), f64_);  // #array + 1
    auto* rising = b.CreateAnd(b.CreateFCmpOGE(first, real(1)), b.CreateFCmpOLT(limit, end));
    auto* falling = b.CreateAnd(b.CreateFCmpOLT(first, end), b.CreateFCmpOGT(limit, real(0)));
    b.CreateStore(b.CreateAnd(whole_values, b.CreateSelect(up, rising, falling)), proven_.at({loop, array}));
  }
}

void Emitter::emit_instruction(std::size_t k) {
  B_.SetInsertPoint(blocks_[k]);
  const auto& page = words_;
  const std::uint32_t w = page[k];
  const std::size_t n = jit::instruction_words(page, k);
  if (n == 0 || shape_->straddles[k]) {  // not an instruction here, or it runs past the page
    B_.CreateBr(exit(int(k), true));
    return;
  }
  const int a = int(jit::a_of(w)), b = int(jit::b_of(w)), c = int(jit::c_of(w));
  const int next = int(k + n);
  switch (jit::op_of(w)) {
    case Op::kLoadN: {
      const std::uint64_t bits = page[k + 1] | (std::uint64_t(page[k + 2]) << 32);
      set(a, llvm::ConstantInt::get(i64_, bits));
      break;
    }
    case Op::kLoadB: set(a, real(b)); break;
    case Op::kMove: set(a, raw(b)); break;
    case Op::kGetMod:
      set(a,
          tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, module_ptr(), jit::ud_of(w))), tbaa_module_));
      break;
    case Op::kSetMod:
      tagged(B_.CreateStore(raw(a), B_.CreateConstInBoundsGEP1_64(i64_, module_ptr(), jit::ud_of(w))), tbaa_module_);
      break;
    case Op::kAdd: set(a, B_.CreateFAdd(num(b), num(c))); break;
    case Op::kSub: set(a, B_.CreateFSub(num(b), num(c))); break;
    case Op::kMul: set(a, B_.CreateFMul(num(b), num(c))); break;
    case Op::kDiv: set(a, B_.CreateFDiv(num(b), num(c))); break;
    case Op::kMod: set(a, lua_mod(num(b), num(c))); break;
    case Op::kPow: set(a, helper(abi::kHelperPow, num(b), num(c))); break;
    case Op::kNeg: set(a, B_.CreateFNeg(num(b))); break;
    case Op::kNot: set(a, flag(B_.CreateFCmpOEQ(num(b), real(0)))); break;
    case Op::kEq: set(a, flag(B_.CreateFCmpOEQ(num(b), num(c)))); break;
    case Op::kLt: set(a, flag(B_.CreateFCmpOLT(num(b), num(c)))); break;
    case Op::kLe: set(a, flag(B_.CreateFCmpOLE(num(b), num(c)))); break;
    case Op::kEqRef: set(a, flag(B_.CreateICmpEQ(raw(b), raw(c)))); break;
    case Op::kJmp: B_.CreateBr(branch_to(k, int(k) + 1 + jit::d_of(w))); return;
    case Op::kJmpIf:
    case Op::kJmpIfNot: {
      auto* truthy = B_.CreateFCmpUNE(num(a), real(0));
      auto* taken = branch_to(k, int(k) + 1 + jit::d_of(w));
      if (jit::op_of(w) == Op::kJmpIf)
        B_.CreateCondBr(truthy, taken, go(next));
      else
        B_.CreateCondBr(truthy, go(next), taken);
      return;
    }
    case Op::kForPrep:
      set(a, B_.CreateFSub(num(a), num(a + 2)));
      for (std::size_t l = 0; l < loops_.size() && !inline_; ++l)  // the first value as FORLOOP computes it
        if (loops_[l].prep == k) prove_in_range(B_, l, B_.CreateFAdd(num(a), num(a + 2)), jit::RegisterSet().set());
      B_.CreateBr(go(int(k) + 1 + jit::d_of(w)));
      return;
    case Op::kForLoop: {
      auto* step = num(a + 2);
      auto* v = B_.CreateFAdd(num(a), step);
      set(a, v);
      auto* limit = num(a + 1);
      // Branches on the step's sign, not a select of both compares: the sign does not change in the
      // loop, so that branch always goes the same way and each iteration makes one compare.
      const std::string at = std::to_string(k);
      auto* up = llvm::BasicBlock::Create(C_, "up" + at, F_);
      auto* down = llvm::BasicBlock::Create(C_, "down" + at, F_);
      auto* body = llvm::BasicBlock::Create(C_, "loop" + at, F_);
      B_.CreateCondBr(B_.CreateFCmpOGT(step, real(0)), up, down);
      B_.SetInsertPoint(up);
      B_.CreateCondBr(B_.CreateFCmpOLE(v, limit), body, go(next));
      B_.SetInsertPoint(down);
      B_.CreateCondBr(B_.CreateFCmpOGE(v, limit), body, go(next));
      B_.SetInsertPoint(body);
      set(a + 3, v);
      B_.CreateBr(branch_to(k, int(k) + 1 + jit::d_of(w)));
      return;
    }
    case Op::kGetI: set(a, tagged(B_.CreateLoad(i64_, element(k, b, num(c))), tbaa_element_)); break;
    case Op::kSetI: {
      auto* value = raw(c);
      tagged(B_.CreateStore(value, element(k, a, num(b), value)), tbaa_element_);
      break;
    }
    case Op::kAppend: append(k, a, raw(b), next); return;
    case Op::kLen: set(a, B_.CreateSIToFP(header(b).size, f64_)); break;
    case Op::kGetF: set(a, tagged(B_.CreateLoad(i64_, field(b, c)), tbaa_field_)); break;
    case Op::kSetF: tagged(B_.CreateStore(raw(c), field(a, b)), tbaa_field_); break;
    case Op::kGetCell: set(a, tagged(B_.CreateLoad(i64_, cell(b)), tbaa_cell_)); break;
    case Op::kSetCell: tagged(B_.CreateStore(raw(b), cell(a)), tbaa_cell_); break;
    case Op::kGetUp: set(a, tagged(B_.CreateLoad(i64_, upvalue(b, c)), tbaa_cell_)); break;
    case Op::kSetUp: tagged(B_.CreateStore(raw(c), upvalue(a, b)), tbaa_cell_); break;
    case Op::kMath: {
      const auto fn = static_cast<jit::MathFn>(b);
      llvm::Value* x = c > 0 ? num(a) : real(0);
      llvm::Value* y = c > 1 ? num(a + 1) : real(0);
      llvm::Value* result = nullptr;
      switch (fn) {
        case jit::MathFn::kAbs: result = intrinsic(llvm::Intrinsic::fabs, x); break;
        case jit::MathFn::kFloor: result = intrinsic(llvm::Intrinsic::floor, x); break;
        case jit::MathFn::kCeil: result = intrinsic(llvm::Intrinsic::ceil, x); break;
        case jit::MathFn::kSqrt: result = intrinsic(llvm::Intrinsic::sqrt, x); break;
        case jit::MathFn::kMin:
        case jit::MathFn::kMax:
          result = x;
          for (int i = 1; i < c; ++i) {  // Lua 5.1's loop: a NaN argument is kept only if first
            auto* v = num(a + i);
            auto* better = fn == jit::MathFn::kMin ? B_.CreateFCmpOLT(v, result) : B_.CreateFCmpOGT(v, result);
            result = B_.CreateSelect(better, v, result);
          }
          break;
        default:
          if (helper_of(fn) == abi::kHelperCount) {
            B_.CreateBr(exit(int(k), true));
            return;
          }
          result = helper(helper_of(fn), x, y);
      }
      set(a, result);
      break;
    }
    case Op::kJNotLt:
    case Op::kJNotLe:
    case Op::kJNotEq:
    case Op::kJEq: {
      llvm::Value* taken_if = nullptr;
      switch (jit::op_of(w)) {
        case Op::kJNotLt: taken_if = B_.CreateNot(B_.CreateFCmpOLT(num(a), num(b))); break;
        case Op::kJNotLe: taken_if = B_.CreateNot(B_.CreateFCmpOLE(num(a), num(b))); break;
        case Op::kJNotEq: taken_if = B_.CreateFCmpUNE(num(a), num(b)); break;
        default: taken_if = B_.CreateFCmpOEQ(num(a), num(b)); break;
      }
      const int target = int(k) + 2 + static_cast<std::int32_t>(page[k + 1]);
      B_.CreateCondBr(taken_if, branch_to(k, target), go(next));
      return;
    }
    case Op::kAddK: set(a, B_.CreateFAdd(num(b), real(jit::constant_operand(page.data(), k)))); break;
    case Op::kSubK: set(a, B_.CreateFSub(num(b), real(jit::constant_operand(page.data(), k)))); break;
    case Op::kMulK: set(a, B_.CreateFMul(num(b), real(jit::constant_operand(page.data(), k)))); break;
    case Op::kDivK: set(a, B_.CreateFDiv(num(b), real(jit::constant_operand(page.data(), k)))); break;
    case Op::kJNotLtK:
    case Op::kJNotLeK:
    case Op::kJNotGtK:
    case Op::kJNotGeK:
    case Op::kJNotEqK:
    case Op::kJEqK: {
      auto* x = num(a);
      auto* constant = real(jit::constant_operand(page.data(), k));
      llvm::Value* taken_if = nullptr;
      switch (jit::op_of(w)) {
        case Op::kJNotLtK: taken_if = B_.CreateNot(B_.CreateFCmpOLT(x, constant)); break;
        case Op::kJNotLeK: taken_if = B_.CreateNot(B_.CreateFCmpOLE(x, constant)); break;
        case Op::kJNotGtK: taken_if = B_.CreateNot(B_.CreateFCmpOGT(x, constant)); break;
        case Op::kJNotGeK: taken_if = B_.CreateNot(B_.CreateFCmpOGE(x, constant)); break;
        case Op::kJNotEqK: taken_if = B_.CreateFCmpUNE(x, constant); break;
        default: taken_if = B_.CreateFCmpOEQ(x, constant); break;
      }
      const int target = int(k) + 2 + static_cast<std::int32_t>(page[k + 1]);
      B_.CreateCondBr(taken_if, branch_to(k, target), go(next));
      return;
    }
    case Op::kTailCall:
      if (!inline_ && !callees_.count(page[k + 1])) {
        tail_call(k, a, b, page[k + 1], next);
        return;
      }
      [[fallthrough]];  // another function compiled in here: as any call of it (the return follows)
    case Op::kCall: {
      const std::uint32_t function = jit::op_of(w) == Op::kTailCall ? page[k + 1] : jit::ud_of(w);
      const auto callee = callees_.find(function);
      const bool inlined = callee != callees_.end() && (!inline_ || (!inline_->outer && callee->second.leaf));
      if (inlined) {
        inline_call(k, a, function, next);
      } else if (inline_) {  // never in a key that passed inline_callees(): the interpreter runs the call
        B_.CreateBr(exit(int(k), true));
      } else {
        emit_call(k, a, llvm::ConstantInt::get(i32_, function), next);
      }
      return;
    }
    case Op::kCallR: {
      // The function value is a closure: its function's index is its first word (jit_abi.h).
      auto* fn = tagged(B_.CreateLoad(i32_, B_.CreateIntToPtr(raw(b), i32_->getPointerTo())), tbaa_cell_);
      if (!inline_) inline_value_callees(k, a, c, fn, next);
      emit_call(k, a, fn, next);
      return;
    }
    case Op::kRet:
    case Op::kRet0: {
      if (inline_) {  // the result goes to the caller's register, and the caller goes on
        llvm::Value* result = jit::op_of(w) == Op::kRet ? raw(a) : llvm::ConstantInt::get(i64_, 0);
        Inline* callee = std::exchange(inline_, inline_->outer);
        set(callee->a, result);
        inline_ = callee;
        B_.CreateBr(callee->done);
        return;
      }
      const int value = jit::op_of(w) == Op::kRet ? a : -1;
      if (value >= 0) slot(value);
      auto* block = llvm::BasicBlock::Create(C_, "return" + std::to_string(k), F_);
      B_.CreateBr(block);
      returns_.push_back({block, k, value});
      return;
    }
    // Printing, host calls, allocation, function values, strings: the interpreter's. Every
    // instruction is listed in this switch (-Werror=switch): a new one is compiled or handed over
    // by decision.
    // Allocation and strings: the interpreter's code for the one instruction, called in place.
    case Op::kNewRec:
    case Op::kNewCell:
    case Op::kClosure:
    case Op::kLoadS:
    case Op::kLoadF:
    case Op::kStr:
    case Op::kNewArr: runtime_op(k, a, next); return;
    case Op::kEqS:
    case Op::kLtS:
    case Op::kLeS: {  // the order of the two strings, from a function that only reads them
      auto* type = llvm::FunctionType::get(i32_, {llvm::Type::getInt8PtrTy(C_), llvm::Type::getInt8PtrTy(C_)}, false);
      auto* order = B_.CreateCall(type, ctx_load(B_, offsetof(abi::Context, compare_strings), type->getPointerTo()),
                                  {B_.CreateIntToPtr(raw(b), llvm::Type::getInt8PtrTy(C_)),
                                   B_.CreateIntToPtr(raw(c), llvm::Type::getInt8PtrTy(C_))});
      order->addFnAttr(llvm::Attribute::NoUnwind);
      order->addFnAttr(llvm::Attribute::ReadOnly);
      auto* zero = llvm::ConstantInt::get(i32_, 0);
      llvm::Value* holds = jit::op_of(w) == Op::kEqS   ? B_.CreateICmpEQ(order, zero)
                           : jit::op_of(w) == Op::kLtS ? B_.CreateICmpSLT(order, zero)
                                                       : B_.CreateICmpSLE(order, zero);
      set(a, B_.CreateUIToFP(holds, f64_));
      break;
    }
    case Op::kLenS: {  // a string's length is its first word
      auto* length = tagged(B_.CreateLoad(i32_, B_.CreateIntToPtr(raw(b), i32_->getPointerTo())), tbaa_cell_);
      set(a, B_.CreateUIToFP(length, f64_));
      break;
    }
    case Op::kPutStr:
    case Op::kHost:
    case Op::kPutN:
    case Op::kPutB:
    case Op::kPutS:
    case Op::kPutTab:
    case Op::kPrintLn:
    case Op::kDefine:
    case Op::kCount: B_.CreateBr(exit(int(k), true)); return;
  }
  B_.CreateBr(go(next));
}

}  // namespace detail

Result<std::vector<std::uint16_t>> emit_page(llvm::Module& module, const jit::PageRequest& request,
                                             const jit::PageShape& shape, const EmitOptions& options) {
  auto callees = jit::inline_callees(request.words);
  if (!callees) return callees.error();
  detail::Emitter emitter(module, request, shape, *callees, options);
  return emitter.run();
}

}  // namespace kiln::jitc
