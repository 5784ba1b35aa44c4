// Calls in page code: direct into the callee's compiled code, through the interpreter's call entry,
// or compiled into the page (inlined small leaves). See jit_abi.h for the contract.

#include "page_emitter_impl.h"

namespace kiln::jitc::detail {

void Emitter::emit_call(std::size_t k, int a, llvm::Value* callee, int next) {
  const std::string at = std::to_string(k);
  auto* start = llvm::BasicBlock::Create(C_, "call" + at, F_);
  auto* direct = llvm::BasicBlock::Create(C_, "direct" + at, F_);
  auto* called = llvm::BasicBlock::Create(C_, "called" + at, F_);
  auto* indirect = llvm::BasicBlock::Create(C_, "indirect" + at, F_);
  auto* pop = llvm::BasicBlock::Create(C_, "pop" + at, F_);
  auto* finish = llvm::BasicBlock::Create(C_, "finish" + at, F_);
  auto* resumed = llvm::BasicBlock::Create(C_, "resumed" + at, F_);
  auto* rebase = llvm::BasicBlock::Create(C_, "rebase" + at, F_);
  auto* returned = llvm::BasicBlock::Create(C_, "returned" + at, F_);
  auto* reload = llvm::BasicBlock::Create(C_, "reload" + at, F_);
  auto* failed = llvm::BasicBlock::Create(C_, "failed" + at, F_);
  const bool checked = req_.mode == abi::JitMode::kChecked;
  auto* ptr_ty = llvm::Type::getInt64PtrTy(C_);
  auto* one = llvm::ConstantInt::get(i64_, 1);
  auto* zero = llvm::ConstantInt::get(i64_, 0);
  B_.CreateBr(start);

  B_.SetInsertPoint(start);  // the argument stores go first (finish_calls)
  auto* regs = current_regs(B_);
  auto* entries = ctx_load(B_, offsetof(abi::Context, entries), i64_->getPointerTo());
  auto* entry = B_.CreateInBoundsGEP(i64_, entries, B_.CreateShl(B_.CreateZExt(callee, i64_), 1));
  auto* code = B_.CreateLoad(i64_, entry);
  auto* needed = B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, entry, 1));
  auto* frame_count = frame_count_;
  auto* native_left = native_left_;
  auto* top = B_.CreateInBoundsGEP(i64_, regs, B_.CreateAdd(needed, llvm::ConstantInt::get(i64_, a)));
  llvm::Value* ok = B_.CreateAnd(
      B_.CreateAnd(B_.CreateICmpNE(code, zero),
                   B_.CreateICmpULT(frame_count, load_field(offsetof(abi::Context, frame_limit), i64_))),
      B_.CreateAnd(B_.CreateICmpNE(native_left, zero),
                   B_.CreateICmpULE(B_.CreatePtrToInt(top, i64_),
                                    B_.CreatePtrToInt(load_field(offsetof(abi::Context, stack_end), ptr_ty), i64_))));
  llvm::Value* count = zero;
  if (checked) {  // one more tick within the budget, and not cancelled
    count = B_.CreateAdd(B_.CreateLoad(i64_, count_slot_), one);
    ok = B_.CreateAnd(ok, B_.CreateNot(tick_stops(B_, count)));
  }
  B_.CreateCondBr(ok, direct, indirect);

  // Direct: push the callee's frame (its base is this frame's plus a) and enter its code at 0.
  B_.SetInsertPoint(direct);
  auto* frames = load_field(offsetof(abi::Context, frames), ptr_ty);
  // This frame's base, from where its registers are in the stack (not read back from its frame).
  auto* stack_before = load_field(offsetof(abi::Context, stack), i64_);
  auto* base = B_.CreateAdd(B_.CreateLShr(B_.CreateSub(B_.CreatePtrToInt(regs, i64_), stack_before), 3),
                            llvm::ConstantInt::get(i64_, a));
  auto* frame = B_.CreateInBoundsGEP(i64_, frames, B_.CreateShl(frame_count, 2));
  B_.CreateStore(B_.CreateZExt(callee, i64_), frame);
  B_.CreateStore(zero, B_.CreateConstInBoundsGEP1_64(i64_, frame, 1));
  B_.CreateStore(base, B_.CreateConstInBoundsGEP1_64(i64_, frame, 2));
  B_.CreateStore(base, B_.CreateConstInBoundsGEP1_64(i64_, frame, 3));
  store_field(offsetof(abi::Context, frame_count), B_.CreateAdd(frame_count, one));
  store_field(offsetof(abi::Context, native_left), B_.CreateSub(native_left, one));
  auto* callee_regs = B_.CreateConstInBoundsGEP1_64(i64_, regs, a);
  llvm::BasicBlock* self = nullptr;
  llvm::Value *self_exit = nullptr, *self_count = nullptr;
  if (llvm::isa<llvm::ConstantInt>(callee)) {
    // The running function's own first page (recursion): its code proper, entered with the callee's
    // registers, the count, the frame count and native_left in machine registers (run()).
    self = llvm::BasicBlock::Create(C_, "self" + at, F_);
    auto* other_code = llvm::BasicBlock::Create(C_, "other" + at, F_);
    B_.CreateCondBr(B_.CreateICmpEQ(code, B_.CreatePtrToInt(page_, i64_)), self, other_code);
    B_.SetInsertPoint(self);
    auto* ran = B_.CreateCall(F_, {ctx_, callee_regs, count, llvm::ConstantInt::get(i32_, 0),
                                   B_.CreateAdd(frame_count, one), B_.CreateSub(native_left, one)});
    ran->setCallingConv(F_->getCallingConv());
    self_exit = B_.CreateExtractValue(ran, 0);
    self_count = B_.CreateExtractValue(ran, 1);
    B_.CreateBr(called);
    B_.SetInsertPoint(other_code);
  }
  if (checked) tagged(B_.CreateStore(count, counted(B_)), tbaa_count_);
  store_field(offsetof(abi::Context, regs), callee_regs);
  auto* page_type = llvm::FunctionType::get(i64_, {llvm::Type::getInt8PtrTy(C_), i32_}, false);
  auto* stopped = B_.CreateCall(page_type, B_.CreateIntToPtr(code, page_type->getPointerTo()),
                                {ctx_, llvm::ConstantInt::get(i32_, 0)});
  stopped->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* count_after =
      checked ? static_cast<llvm::Value*>(tagged(B_.CreateLoad(i64_, counted(B_)), tbaa_count_)) : zero;
  auto* any = B_.GetInsertBlock();
  B_.CreateBr(called);
  B_.SetInsertPoint(called);
  auto* exit_phi = B_.CreatePHI(i64_, 2);
  auto* count_phi = B_.CreatePHI(i64_, 2);
  exit_phi->addIncoming(stopped, any);
  count_phi->addIncoming(count_after, any);
  if (self) {
    exit_phi->addIncoming(self_exit, self);
    count_phi->addIncoming(self_count, self);
  }
  store_field(offsetof(abi::Context, native_left), native_left);
  auto* came_back = B_.CreateICmpNE(B_.CreateAnd(exit_phi, llvm::ConstantInt::get(i64_, abi::kReturnedFlag)), zero);
  B_.CreateCondBr(came_back, pop, finish);
  B_.SetInsertPoint(pop);
  store_field(offsetof(abi::Context, frame_count), frame_count);
  if (checked) B_.CreateStore(count_phi, count_slot_);
  B_.CreateBr(rebase);
  B_.SetInsertPoint(finish);  // the callee stopped before its return: the interpreter finishes it
  if (checked) tagged(B_.CreateStore(count_phi, counted(B_)), tbaa_count_);
  auto* resume_type = llvm::FunctionType::get(i32_, {llvm::Type::getInt8PtrTy(C_), i64_}, false);
  auto* resume = B_.CreateCall(resume_type, load_field(offsetof(abi::Context, resume), resume_type->getPointerTo()),
                               {ctx_, exit_phi});
  resume->addFnAttr(llvm::Attribute::NoUnwind);
  B_.CreateCondBr(B_.CreateICmpEQ(resume, llvm::ConstantInt::get(i32_, abi::kCallReturned)), resumed, failed);
  B_.SetInsertPoint(resumed);
  if (checked) B_.CreateStore(tagged(B_.CreateLoad(i64_, counted(B_)), tbaa_count_), count_slot_);
  B_.CreateBr(rebase);
  B_.SetInsertPoint(rebase);  // the register stack may have moved: same offset, new place
  auto* moved = B_.CreateSub(load_field(offsetof(abi::Context, stack), i64_), stack_before);
  B_.CreateStore(B_.CreateIntToPtr(B_.CreateAdd(B_.CreatePtrToInt(regs, i64_), moved), ptr_ty), regs_slot_);
  B_.CreateBr(reload);

  // Through the interpreter's call entry, which may also say no (the interpreter then runs it).
  B_.SetInsertPoint(indirect);
  if (checked) tagged(B_.CreateStore(B_.CreateLoad(i64_, count_slot_), counted(B_)), tbaa_count_);
  auto* status = B_.CreateCall(call_type_, ctx_load(B_, offsetof(abi::Context, call), call_type_->getPointerTo()),
                               {ctx_, callee, llvm::ConstantInt::get(i32_, a)});
  status->addFnAttr(llvm::Attribute::NoUnwind);
  auto* sw = B_.CreateSwitch(status, exit(int(k), true), 2);
  sw->addCase(llvm::ConstantInt::get(i32_, abi::kCallReturned), returned);
  sw->addCase(llvm::ConstantInt::get(i32_, abi::kCallFailed), failed);
  B_.SetInsertPoint(returned);
  B_.CreateStore(load_field(offsetof(abi::Context, regs), ptr_ty), regs_slot_);
  if (checked) B_.CreateStore(tagged(B_.CreateLoad(i64_, counted(B_)), tbaa_count_), count_slot_);
  B_.CreateBr(reload);

  B_.SetInsertPoint(failed);  // the run is over: nothing to store
  leave(abi::exit_code(int(k), true) | abi::kFailedFlag,
        checked ? static_cast<llvm::Value*>(tagged(B_.CreateLoad(i64_, counted(B_)), tbaa_count_)) : zero);
  B_.SetInsertPoint(reload);
  B_.CreateBr(go(next));
  calls_.push_back({start, reload, a});
}

void Emitter::runtime_op(std::size_t k, int a, int next) {
  if (inline_) {  // never in an inlined callee (inlining.h): it would run twice when the call stops
    B_.CreateBr(exit(int(k), true));
    return;
  }
  const std::string at = std::to_string(k);
  auto* start = llvm::BasicBlock::Create(C_, "op" + at, F_);
  auto* done = llvm::BasicBlock::Create(C_, "opdone" + at, F_);
  B_.CreateBr(start);
  B_.SetInsertPoint(start);  // the stores of the registers go first (finish_calls)
  const std::size_t n = jit::instruction_words(words_, k);
  const std::vector<std::uint32_t> instruction(words_.begin() + static_cast<std::ptrdiff_t>(k),
                                               words_.begin() + static_cast<std::ptrdiff_t>(k + n));
  auto* data = llvm::ConstantDataArray::get(C_, instruction);
  auto* words = new llvm::GlobalVariable(M_, data->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                         data, "instruction" + at);
  words->setAlignment(llvm::Align(4));
  auto* type = llvm::FunctionType::get(
      i32_, {llvm::Type::getInt8PtrTy(C_), llvm::Type::getInt64PtrTy(C_), i32_->getPointerTo()}, false);
  auto* status = B_.CreateCall(type, ctx_load(B_, offsetof(abi::Context, runtime_op), type->getPointerTo()),
                               {ctx_, current_regs(B_), B_.CreateBitCast(words, i32_->getPointerTo())});
  status->addFnAttr(llvm::Attribute::NoUnwind);
  B_.CreateCondBr(B_.CreateICmpEQ(status, llvm::ConstantInt::get(i32_, abi::kCallReturned)), done, exit(int(k), true));
  B_.SetInsertPoint(done);
  B_.CreateBr(go(next));
  calls_.push_back({start, done, a});
}

void Emitter::tail_call(std::size_t k, int a, int args, std::uint32_t function, int next) {
  const std::string at = std::to_string(k);
  auto* itself = llvm::BasicBlock::Create(C_, "tailself" + at, F_);
  auto* other = llvm::BasicBlock::Create(C_, "tailother" + at, F_);
  auto* ptr_ty = llvm::Type::getInt64PtrTy(C_);
  auto* frames = load_field(offsetof(abi::Context, frames), ptr_ty);
  auto* frame_count = frame_count_;
  auto* running = B_.CreateLoad(
      i64_,
      B_.CreateInBoundsGEP(i64_, frames, B_.CreateSub(B_.CreateShl(frame_count, 2), llvm::ConstantInt::get(i64_, 4))));
  B_.CreateCondBr(B_.CreateICmpEQ(running, llvm::ConstantInt::get(i64_, function)), itself, other);

  B_.SetInsertPoint(itself);
  if (!shape_->starts[0]) {
    B_.CreateBr(exit(int(k), true));
  } else {
    auto* again = llvm::BasicBlock::Create(C_, "tailloop" + at, F_);
    auto* entries = ctx_load(B_, offsetof(abi::Context, entries), i64_->getPointerTo());
    auto* code = B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, entries, std::uint64_t(function) * 2));
    llvm::Value* ok = B_.CreateICmpEQ(code, B_.CreatePtrToInt(page_, i64_));
    llvm::Value* count = nullptr;
    if (req_.mode == abi::JitMode::kChecked) {  // the call's tick
      count = B_.CreateAdd(B_.CreateLoad(i64_, count_slot_), llvm::ConstantInt::get(i64_, 1));
      ok = B_.CreateAnd(ok, B_.CreateNot(tick_stops(B_, count)));
    }
    B_.CreateCondBr(ok, again, exit(int(k), true));
    B_.SetInsertPoint(again);
    if (count) B_.CreateStore(count, count_slot_);
    std::vector<llvm::Value*> values;
    for (int i = 0; i < args; ++i) values.push_back(raw(a + i));
    for (int i = 0; i < args; ++i) set(i, values[std::size_t(i)]);
    B_.CreateBr(blocks_.at(0));
  }
  B_.SetInsertPoint(other);
  emit_call(k, a, llvm::ConstantInt::get(i32_, function), next);
}

void Emitter::inline_call(std::size_t k, int a, std::uint32_t function, int next) {
  const Callee& callee = callees_.at(function);
  Inline* outer = inline_;
  const std::string at = std::to_string(k) + (outer ? "n" + std::to_string(function) : "");
  auto* body = llvm::BasicBlock::Create(C_, "inline" + at, F_);
  auto* done = llvm::BasicBlock::Create(C_, "inlined" + at, F_);
  llvm::Value* ok = inline_allowed(function, outer ? 2 : 1);
  llvm::Value* count = nullptr;
  if (req_.mode == abi::JitMode::kChecked) {
    // The budget's tick, exactly as the interpreter counts it. No look at the cancellation flag: the
    // callee runs no loop, so the caller's next back-edge or call comes soon after.
    count = B_.CreateAdd(B_.CreateLoad(i64_, outer ? outer->count : count_slot_), llvm::ConstantInt::get(i64_, 1));
    ok = B_.CreateAnd(ok, B_.CreateICmpULE(count, budget_));
  }
  B_.CreateCondBr(ok, body, exit(int(k), true));  // inside an inlined call: the outer call's stop

  Inline frame{k, a, exit(int(k), true), done, {}, &callee.arrays, outer, nullptr};
  if (count) frame.count = entry_builder_.CreateAlloca(i64_, nullptr, "i" + at + "count");
  std::map<std::size_t, llvm::BasicBlock*> callee_blocks;
  for (std::size_t j = 0; j < kPageWords; ++j)
    if (callee.shape.starts[j]) callee_blocks[j] = llvm::BasicBlock::Create(C_, "i" + at + "w" + std::to_string(j), F_);
  B_.SetInsertPoint(body);
  B_.CreateBr(callee_blocks.at(0));
  const auto page_words = std::exchange(words_, std::span<const std::uint32_t>(callee.words));
  const jit::PageShape* page_shape = std::exchange(shape_, &callee.shape);
  std::swap(blocks_, callee_blocks);
  inline_ = &frame;
  for (const auto& [j, block] : blocks_) emit_instruction(j);
  inline_ = outer;
  std::swap(blocks_, callee_blocks);
  words_ = page_words;
  shape_ = page_shape;

  // The callee's registers start as its arguments (the rest as zero: it writes before it reads).
  llvm::IRBuilder<> start(body->getTerminator());
  for (const auto& [r, home] : frame.regs)
    store_slot(start, r < callee.params ? slot_bits(start, slot(a + r)) : llvm::ConstantInt::get(i64_, 0), home);
  if (count) start.CreateStore(count, frame.count);
  B_.SetInsertPoint(done);
  if (count) B_.CreateStore(B_.CreateLoad(i64_, frame.count), outer ? outer->count : count_slot_);
  B_.CreateBr(go(next));
}

void Emitter::inline_value_callees(std::size_t k, int a, int args, llvm::Value* fn, int next) {
  std::vector<std::uint32_t> reachable;
  for (const auto& [function, callee] : callees_)
    if (callee.for_values && callee.params == args) reachable.push_back(function);
  if (reachable.empty()) return;
  const std::string at = std::to_string(k);
  auto* other = llvm::BasicBlock::Create(C_, "callr" + at, F_);
  auto* which = B_.CreateSwitch(fn, other, unsigned(reachable.size()));
  for (std::uint32_t function : reachable) {
    auto* block = llvm::BasicBlock::Create(C_, "value" + at + "f" + std::to_string(function), F_);
    which->addCase(llvm::ConstantInt::get(i32_, function), block);
    B_.SetInsertPoint(block);
    inline_call(k, a, function, next);
  }
  B_.SetInsertPoint(other);
}

llvm::Value* Emitter::inline_allowed(std::uint32_t function, int depth) {
  auto& allowed = inline_allowed_[{function, depth}];
  if (allowed) return allowed;
  auto& room = frame_room_[depth];
  if (!room)
    room = entry_builder_.CreateICmpULE(
        entry_builder_.CreateAdd(frame_count_, llvm::ConstantInt::get(i64_, std::uint64_t(depth))),
        entry_field(offsetof(abi::Context, frame_limit), i64_));
  auto* defined = entry_field(offsetof(abi::Context, defined), i8_->getPointerTo());
  auto* is_defined = entry_builder_.CreateLoad(i8_, entry_builder_.CreateConstInBoundsGEP1_64(i8_, defined, function));
  allowed = entry_builder_.CreateAnd(entry_builder_.CreateICmpNE(is_defined, llvm::ConstantInt::get(i8_, 0)), room);
  return allowed;
}

void Emitter::finish_calls() {
  for (const CallSite& call : calls_) {
    llvm::IRBuilder<> before(&*call.start->getFirstInsertionPt());
    auto* regs = current_regs(before);
    for (int r : written_)  // the arguments; below them what may be a reference, for the collector
      if (r >= call.a || !numbers_.test(std::size_t(r)))
        tagged(before.CreateStore(slot_bits(before, slots_.at(r)), reg_ptr(before, regs, r)), tbaa_reg_);
    llvm::IRBuilder<> after(call.reload->getTerminator());
    auto* result = tagged(after.CreateLoad(i64_, reg_ptr(after, current_regs(after), call.a)), tbaa_reg_);
    store_slot(after, result, slot(call.a));
  }
}

}  // namespace kiln::jitc::detail
