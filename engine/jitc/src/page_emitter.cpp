#include "page_emitter.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>

#include <cstddef>
#include <map>
#include <set>
#include <utility>

#include "kiln/jit/register_liveness.h"

namespace kiln::jitc {
namespace {

using jit::kPageWords;
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

class Emitter {
 public:
  Emitter(llvm::Module& module, const jit::PageRequest& request, const jit::PageShape& shape,
          std::span<const jit::InlineCallee> callees, const EmitOptions& options)
      : C_(module.getContext()),
        M_(module),
        B_(C_),
        entry_builder_(C_),
        req_(request),
        words_(request.words.first(kPageWords)),
        shape_(&shape),
        options_(options) {
    for (const jit::InlineCallee& callee : callees) {
      Callee& c = callees_[callee.function];
      c.params = callee.params;
      c.words.assign(kPageWords, 0);  // analysed as a page entered at 0 (its code never reaches the padding)
      std::copy(callee.code.begin(), callee.code.end(), c.words.begin());
      const std::uint16_t start = 0;
      c.shape = jit::analyze_page(c.words, std::span<const std::uint16_t>(&start, 1));
      c.arrays = array_registers(c.words, c.shape);
    }
  }

  // The registers the code at `starts` uses as arrays.
  static jit::RegisterSet array_registers(std::span<const std::uint32_t> words, const jit::PageShape& shape) {
    jit::RegisterSet arrays;
    for (std::size_t k = 0; k < kPageWords; ++k) {
      if (!shape.starts[k] || shape.straddles[k] || jit::instruction_words(words, k) == 0) continue;
      const std::uint32_t w = words[k];
      switch (jit::op_of(w)) {
        case Op::kNewArr: arrays.set(jit::a_of(w)); break;
        case Op::kAppend:
        case Op::kSetI: arrays.set(jit::a_of(w)); break;
        case Op::kGetI:
        case Op::kLen: arrays.set(jit::b_of(w)); break;
        case Op::kEqRef: arrays.set(jit::b_of(w)), arrays.set(jit::c_of(w)); break;
        default: break;
      }
    }
    return arrays;
  }

  std::vector<std::uint16_t> run() {
    i8_ = llvm::Type::getInt8Ty(C_);
    i32_ = llvm::Type::getInt32Ty(C_);
    i64_ = llvm::Type::getInt64Ty(C_);
    f64_ = llvm::Type::getDoubleTy(C_);
    helper_type_ = llvm::FunctionType::get(f64_, {f64_, f64_}, false);
    auto* fn_type = llvm::FunctionType::get(i64_, {llvm::Type::getInt8PtrTy(C_), i32_}, false);
    F_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, kPageFunctionName, M_);
    F_->addFnAttr(llvm::Attribute::NoUnwind);
    F_->addFnAttr("frame-pointer", "none");
    ctx_ = F_->getArg(0);
    entry_arg_ = F_->getArg(1);
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

    llvm::BasicBlock* entry = llvm::BasicBlock::Create(C_, "entry", F_);
    entry_builder_.SetInsertPoint(entry);
    // The frame's registers: where the page was entered, and where they are now (a call may move them).
    regs_ = entry_field(offsetof(abi::Context, regs), llvm::Type::getInt64PtrTy(C_));
    regs_slot_ = entry_builder_.CreateAlloca(llvm::Type::getInt64PtrTy(C_), nullptr, "regs");
    entry_builder_.CreateStore(regs_, regs_slot_);
    // The budget counter lives in a register while the page runs, stored back at every exit.
    count_slot_ = entry_builder_.CreateAlloca(i64_, nullptr, "counted");
    entry_builder_.CreateStore(tagged(entry_builder_.CreateLoad(i64_, counted(entry_builder_)), tbaa_count_),
                               count_slot_);
    // The last count a tick may reach (no budget: never stops), decided once per entry.
    auto* budget = entry_field(offsetof(abi::Context, budget), i64_);
    budget_ = entry_builder_.CreateSelect(entry_builder_.CreateICmpEQ(budget, llvm::ConstantInt::get(i64_, 0)),
                                          llvm::ConstantInt::get(i64_, ~std::uint64_t{0}), budget);
    call_type_ = llvm::FunctionType::get(i32_, {llvm::Type::getInt8PtrTy(C_), i32_, i32_}, false);

    arrays_ = array_registers(words_, *shape_);
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
      if (req_.mode == abi::JitMode::kChecked)
        tagged(B_.CreateStore(B_.CreateLoad(i64_, count_slot_), counted(B_)), tbaa_count_);
      B_.CreateRet(llvm::ConstantInt::get(i64_, abi::exit_code(int(site.k), false) | abi::kReturnedFlag));
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
      if (req_.mode == abi::JitMode::kChecked)
        tagged(B_.CreateStore(B_.CreateLoad(i64_, count_slot_), counted(B_)), tbaa_count_);
      B_.CreateRet(llvm::ConstantInt::get(i64_, abi::exit_code(key.first, key.second)));
    }
    // Entering anywhere else: back to the interpreter, nothing changed.
    llvm::BasicBlock* other = llvm::BasicBlock::Create(C_, "not_an_entry", F_);
    B_.SetInsertPoint(other);
    B_.CreateRet(B_.CreateOr(B_.CreateZExt(entry_arg_, i64_), llvm::ConstantInt::get(i64_, abi::kInterpretFlag)));
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
      b.CreateBr(blocks_[e]);
      sw->addCase(llvm::ConstantInt::get(llvm::Type::getInt32Ty(C_), e), enter);
    }
    return served;
  }

 private:
  // A context field loaded once when the page is entered.
  llvm::Value* entry_field(std::size_t offset, llvm::Type* type) { return ctx_load(entry_builder_, offset, type); }
  llvm::Value* reg_ptr(llvm::IRBuilder<>& b, llvm::Value* regs, int r) {
    return b.CreateConstInBoundsGEP1_64(i64_, regs, r);
  }
  llvm::Value* current_regs(llvm::IRBuilder<>& b) { return b.CreateLoad(llvm::Type::getInt64PtrTy(C_), regs_slot_); }

  // The SSA home of register r, loaded from the frame at the entries where it is live. In an inlined
  // callee: the callee's register r, set when the call starts (inline_call). A register the code
  // uses as an array has an integer home; the others are doubles, so that numbers live in
  // floating-point registers and leave the general ones to addresses and counters.
  llvm::AllocaInst* slot(int r) {
    if (inline_) {
      auto& home = inline_->regs[r];
      if (!home)
        home = entry_builder_.CreateAlloca(inline_->arrays->test(std::size_t(r)) ? i64_ : f64_, nullptr,
                                           "i" + std::to_string(inline_->k) + "r" + std::to_string(r));
      return home;
    }
    if (auto it = slots_.find(r); it != slots_.end()) return it->second;
    auto* a = entry_builder_.CreateAlloca(arrays_.test(std::size_t(r)) ? i64_ : f64_, nullptr, "r" + std::to_string(r));
    slots_[r] = a;
    return a;
  }
  llvm::Value* slot_as(llvm::IRBuilder<>& b, llvm::AllocaInst* home, llvm::Type* type) {
    return b.CreateBitCast(b.CreateLoad(home->getAllocatedType(), home), type);
  }
  llvm::Value* slot_bits(llvm::IRBuilder<>& b, llvm::AllocaInst* home) { return slot_as(b, home, i64_); }
  void store_slot(llvm::IRBuilder<>& b, llvm::Value* v, llvm::AllocaInst* home) {
    b.CreateStore(b.CreateBitCast(v, home->getAllocatedType()), home);
  }
  llvm::Value* raw(int r) { return slot_bits(B_, slot(r)); }
  template <class I>
  I* tagged(I* inst, llvm::MDNode* tbaa) {
    inst->setMetadata(llvm::LLVMContext::MD_tbaa, tbaa);
    return inst;
  }
  llvm::Value* num(int r) { return slot_as(B_, slot(r), f64_); }
  void set_num(int r, llvm::Value* v) {
    if (!inline_) written_.insert(r);
    store_slot(B_, v, slot(r));
  }
  void set_raw(int r, llvm::Value* v) { set_num(r, v); }
  llvm::Value* flag(llvm::Value* i1) { return B_.CreateUIToFP(i1, f64_); }
  llvm::Value* real(double v) { return llvm::ConstantFP::get(f64_, v); }

  // Where control goes to leave the page. An inlined callee leaves by running its whole call again
  // in the interpreter: it changed nothing outside its own registers before.
  llvm::BasicBlock* exit(int target, bool interpret) {
    if (inline_) return inline_->bail;
    auto& block = exits_[{target, interpret}];
    if (!block) block = llvm::BasicBlock::Create(C_, "exit" + std::to_string(target) + (interpret ? "i" : ""), F_);
    return block;
  }
  // Where control goes for page-relative `target`: its block, or an exit when it leaves the page.
  llvm::BasicBlock* go(int target) {
    if (target >= 0 && target < int(kPageWords) && shape_->starts[std::size_t(target)])
      return blocks_[std::size_t(target)];
    return exit(target, false);
  }
  // A backward branch from instruction k to `target`: in checked mode it counts against the budget
  // and looks at the cancellation flag first; if either stops it, the interpreter runs the branch
  // (and reports the error with its line).
  // Whether a tick that brings the budget counter to `count` must stop: over a set budget, or
  // cancelled (the interpreter then runs the instruction and reports it).
  llvm::Value* tick_stops(llvm::IRBuilder<>& b, llvm::Value* count) {
    auto* over = b.CreateICmpUGT(count, budget_);
    auto* flag = b.CreateLoad(i8_, ctx_load(b, offsetof(abi::Context, cancelled), i8_->getPointerTo()));
    flag->setAtomic(llvm::AtomicOrdering::Monotonic);
    flag->setAlignment(llvm::Align(1));
    return b.CreateOr(over, b.CreateICmpNE(flag, llvm::ConstantInt::get(i8_, 0)));
  }
  llvm::BasicBlock* backward(std::size_t k, int target) {
    if (req_.mode == abi::JitMode::kUnchecked) return go(target);
    auto* check = llvm::BasicBlock::Create(C_, "tick" + std::to_string(k), F_);
    auto* ok = llvm::BasicBlock::Create(C_, "ticked" + std::to_string(k), F_);
    llvm::IRBuilder<> b(check);
    auto* count = b.CreateAdd(b.CreateLoad(i64_, count_slot_), llvm::ConstantInt::get(i64_, 1));
    b.CreateCondBr(tick_stops(b, count), exit(int(k), true), ok);
    b.SetInsertPoint(ok);
    b.CreateStore(count, count_slot_);
    b.CreateBr(go(target));
    return check;
  }
  llvm::BasicBlock* branch_to(std::size_t k, int target) { return target <= int(k) ? backward(k, target) : go(target); }

  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    return B_.CreateCall(llvm::Intrinsic::getDeclaration(&M_, id, {f64_}), {x});
  }
  llvm::Value* helper(abi::HelperIndex index, llvm::Value* x, llvm::Value* y) {
    auto* table = B_.CreateLoad(
        helper_type_->getPointerTo(),
        B_.CreateConstInBoundsGEP1_64(
            helper_type_->getPointerTo(),
            ctx_load(B_, offsetof(abi::Context, helpers), helper_type_->getPointerTo()->getPointerTo()), index));
    auto* call = B_.CreateCall(helper_type_, table, {x, y});
    call->addFnAttr(llvm::Attribute::NoUnwind);
    call->addFnAttr(llvm::Attribute::ReadNone);  // math only: no memory the page can see
    return call;
  }
  llvm::Value* lua_mod(llvm::Value* a, llvm::Value* b) {
    if (options_.frem_libcall) {  // fault injection: a libcall, and Lua 5.2's sign rule on top of it
      auto* r = B_.CreateFRem(a, b);
      auto* fix = B_.CreateAnd(B_.CreateFCmpUNE(r, real(0)),
                               B_.CreateXor(B_.CreateFCmpOLT(r, real(0)), B_.CreateFCmpOLT(b, real(0))));
      return B_.CreateSelect(fix, B_.CreateFAdd(r, b), r);
    }
    return B_.CreateFSub(a, B_.CreateFMul(intrinsic(llvm::Intrinsic::floor, B_.CreateFDiv(a, b)), b));  // Lua 5.1
  }

  // The element pointer of array register `arr` at number `index`, branching to the interpreter
  // at instruction k unless 1 <= index <= #arr and index is whole. A write (`appended` is the value)
  // at #arr + 1 appends it instead, within the array's capacity, and goes on at k's successor.
  llvm::Value* element(std::size_t k, int arr, llvm::Value* index, llvm::Value* appended = nullptr) {
    auto* base = B_.CreateIntToPtr(raw(arr), llvm::Type::getInt64PtrTy(C_));
    auto* data =
        B_.CreateIntToPtr(tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 0)), tbaa_header_),
                          llvm::Type::getInt64PtrTy(C_));
    auto* size = tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 1)), tbaa_header_);
    // x86's truncating conversion (defined for every input, unlike LLVM's fptosi) gives INT64_MIN for
    // NaN and anything out of range. The index is whole when the integer converts back to it (never
    // for INT64_MIN unless the index is -2^63, whose i - 1 wraps past any size), and in [1, size]
    // when i - 1 is below size, unsigned. Compiled code is x86-64 only (object_linker).
    auto* vector =
        B_.CreateInsertElement(llvm::UndefValue::get(llvm::FixedVectorType::get(f64_, 2)), index, std::uint64_t{0});
    auto* whole = B_.CreateCall(llvm::Intrinsic::getDeclaration(&M_, llvm::Intrinsic::x86_sse2_cvttsd2si64), {vector});
    auto* i = B_.CreateSub(whole, llvm::ConstantInt::get(i64_, 1));
    auto* ok = B_.CreateAnd(B_.CreateFCmpOEQ(B_.CreateSIToFP(whole, f64_), index), B_.CreateICmpULT(i, size));
    auto* in_range = llvm::BasicBlock::Create(C_, "in" + std::to_string(k), F_);
    llvm::BasicBlock* outside = exit(int(k), true);
    if (appended) {
      outside = llvm::BasicBlock::Create(C_, "outside" + std::to_string(k), F_);
      B_.CreateCondBr(ok, in_range, outside);
      B_.SetInsertPoint(outside);
      auto* at_end = B_.CreateAnd(B_.CreateFCmpOEQ(B_.CreateSIToFP(whole, f64_), index), B_.CreateICmpEQ(i, size));
      auto* appending = llvm::BasicBlock::Create(C_, "appending" + std::to_string(k), F_);
      B_.CreateCondBr(at_end, appending, exit(int(k), true));
      B_.SetInsertPoint(appending);
      push(k, base, data, size, appended);
      B_.CreateBr(go(int(k + 1)));
    } else {
      B_.CreateCondBr(ok, in_range, outside);
    }
    B_.SetInsertPoint(in_range);
    return B_.CreateInBoundsGEP(i64_, data, i);
  }

  // Stores `value` after the `size` elements at `data` of the array whose header is at `base`, when
  // its capacity and the element budget allow (else the interpreter runs instruction k, which grows
  // the storage or reports the budget).
  void push(std::size_t k, llvm::Value* base, llvm::Value* data, llvm::Value* size, llvm::Value* value) {
    auto* capacity = tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 2)), tbaa_header_);
    auto* counter = ctx_load(B_, offsetof(abi::Context, elements), i64_->getPointerTo());
    auto* created = tagged(B_.CreateLoad(i64_, counter), tbaa_elements_);
    auto* room = B_.CreateAnd(B_.CreateICmpULT(size, capacity),
                              B_.CreateICmpULT(created, ctx_load(B_, offsetof(abi::Context, max_elements), i64_)));
    auto* store = llvm::BasicBlock::Create(C_, "push" + std::to_string(k), F_);
    B_.CreateCondBr(room, store, exit(int(k), true));
    B_.SetInsertPoint(store);
    tagged(B_.CreateStore(value, B_.CreateInBoundsGEP(i64_, data, size)), tbaa_element_);
    tagged(B_.CreateStore(B_.CreateAdd(size, llvm::ConstantInt::get(i64_, 1)),
                          B_.CreateConstInBoundsGEP1_64(i64_, base, 1)),
           tbaa_header_);
    tagged(B_.CreateStore(B_.CreateAdd(created, llvm::ConstantInt::get(i64_, 1)), counter), tbaa_elements_);
  }
  // APPEND at k: the value goes after the array's last element.
  void append(std::size_t k, int arr, llvm::Value* value, int next) {
    auto* base = B_.CreateIntToPtr(raw(arr), llvm::Type::getInt64PtrTy(C_));
    auto* data =
        B_.CreateIntToPtr(tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 0)), tbaa_header_),
                          llvm::Type::getInt64PtrTy(C_));
    auto* size = tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 1)), tbaa_header_);
    push(k, base, data, size, value);
    B_.CreateBr(go(next));
  }

  // A call at instruction k: the callee runs to its return while this page waits, then the page
  // goes on at `next` with the result in register a. Directly into the callee's code when it has
  // some and nothing stands in the way, else through ctx->call (see jit_abi.h). The arguments are
  // stored before and the result read after (finish_calls, once every register the page writes is
  // known).
  void emit_call(std::size_t k, int a, llvm::Value* callee, int next) {
    const std::string at = std::to_string(k);
    auto* start = llvm::BasicBlock::Create(C_, "call" + at, F_);
    auto* direct = llvm::BasicBlock::Create(C_, "direct" + at, F_);
    auto* indirect = llvm::BasicBlock::Create(C_, "indirect" + at, F_);
    auto* pop = llvm::BasicBlock::Create(C_, "pop" + at, F_);
    auto* finish = llvm::BasicBlock::Create(C_, "finish" + at, F_);
    auto* rebase = llvm::BasicBlock::Create(C_, "rebase" + at, F_);
    auto* returned = llvm::BasicBlock::Create(C_, "returned" + at, F_);
    auto* reload = llvm::BasicBlock::Create(C_, "reload" + at, F_);
    auto* failed = llvm::BasicBlock::Create(C_, "failed" + at, F_);
    const bool checked = req_.mode == abi::JitMode::kChecked;
    auto* ptr_ty = llvm::Type::getInt64PtrTy(C_);
    auto* one = llvm::ConstantInt::get(i64_, 1);
    B_.CreateBr(start);

    B_.SetInsertPoint(start);  // the argument stores go first (finish_calls)
    if (checked) tagged(B_.CreateStore(B_.CreateLoad(i64_, count_slot_), counted(B_)), tbaa_count_);
    auto* regs = current_regs(B_);
    auto* entries = ctx_load(B_, offsetof(abi::Context, entries), i64_->getPointerTo());
    auto* entry = B_.CreateInBoundsGEP(i64_, entries, B_.CreateShl(B_.CreateZExt(callee, i64_), 1));
    auto* code = B_.CreateLoad(i64_, entry);
    auto* needed = B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, entry, 1));
    auto* frame_count = load_field(offsetof(abi::Context, frame_count), i64_);
    auto* native_left = load_field(offsetof(abi::Context, native_left), i64_);
    auto* top = B_.CreateInBoundsGEP(i64_, regs, B_.CreateAdd(needed, llvm::ConstantInt::get(i64_, a)));
    llvm::Value* ok = B_.CreateAnd(
        B_.CreateAnd(B_.CreateICmpNE(code, llvm::ConstantInt::get(i64_, 0)),
                     B_.CreateICmpULT(frame_count, load_field(offsetof(abi::Context, frame_limit), i64_))),
        B_.CreateAnd(B_.CreateICmpNE(native_left, llvm::ConstantInt::get(i64_, 0)),
                     B_.CreateICmpULE(B_.CreatePtrToInt(top, i64_),
                                      B_.CreatePtrToInt(load_field(offsetof(abi::Context, stack_end), ptr_ty), i64_))));
    llvm::Value* count = nullptr;
    if (checked) {  // one more tick within the budget, and not cancelled
      count = B_.CreateAdd(B_.CreateLoad(i64_, count_slot_), one);
      ok = B_.CreateAnd(ok, B_.CreateNot(tick_stops(B_, count)));
    }
    B_.CreateCondBr(ok, direct, indirect);

    // Direct: push the callee's frame (its base is this frame's plus a) and enter its code at 0.
    B_.SetInsertPoint(direct);
    auto* frames = load_field(offsetof(abi::Context, frames), ptr_ty);
    auto* base = B_.CreateAdd(
        B_.CreateLoad(i64_, B_.CreateInBoundsGEP(i64_, frames,
                                                 B_.CreateAdd(B_.CreateShl(frame_count, 2),
                                                              llvm::ConstantInt::get(i64_, std::uint64_t(-2))))),
        llvm::ConstantInt::get(i64_, a));
    auto* frame = B_.CreateInBoundsGEP(i64_, frames, B_.CreateShl(frame_count, 2));
    B_.CreateStore(B_.CreateZExt(callee, i64_), frame);
    B_.CreateStore(llvm::ConstantInt::get(i64_, 0), B_.CreateConstInBoundsGEP1_64(i64_, frame, 1));
    B_.CreateStore(base, B_.CreateConstInBoundsGEP1_64(i64_, frame, 2));
    B_.CreateStore(base, B_.CreateConstInBoundsGEP1_64(i64_, frame, 3));
    store_field(offsetof(abi::Context, frame_count), B_.CreateAdd(frame_count, one));
    store_field(offsetof(abi::Context, native_left), B_.CreateSub(native_left, one));
    if (checked) tagged(B_.CreateStore(count, counted(B_)), tbaa_count_);
    auto* stack_before = load_field(offsetof(abi::Context, stack), i64_);
    store_field(offsetof(abi::Context, regs), B_.CreateConstInBoundsGEP1_64(i64_, regs, a));
    auto* page_type = llvm::FunctionType::get(i64_, {llvm::Type::getInt8PtrTy(C_), i32_}, false);
    auto* stopped = B_.CreateCall(page_type, B_.CreateIntToPtr(code, page_type->getPointerTo()),
                                  {ctx_, llvm::ConstantInt::get(i32_, 0)});
    stopped->addFnAttr(llvm::Attribute::NoUnwind);
    store_field(offsetof(abi::Context, native_left), native_left);
    auto* came_back = B_.CreateICmpNE(B_.CreateAnd(stopped, llvm::ConstantInt::get(i64_, abi::kReturnedFlag)),
                                      llvm::ConstantInt::get(i64_, 0));
    B_.CreateCondBr(came_back, pop, finish);
    B_.SetInsertPoint(pop);
    store_field(offsetof(abi::Context, frame_count), frame_count);
    B_.CreateBr(rebase);
    B_.SetInsertPoint(finish);  // the callee stopped before its return: the interpreter finishes it
    auto* resume_type = llvm::FunctionType::get(i32_, {llvm::Type::getInt8PtrTy(C_), i64_}, false);
    auto* resume = B_.CreateCall(resume_type, load_field(offsetof(abi::Context, resume), resume_type->getPointerTo()),
                                 {ctx_, stopped});
    resume->addFnAttr(llvm::Attribute::NoUnwind);
    B_.CreateCondBr(B_.CreateICmpEQ(resume, llvm::ConstantInt::get(i32_, abi::kCallReturned)), rebase, failed);
    B_.SetInsertPoint(rebase);  // the register stack may have moved: same offset, new place
    auto* moved = B_.CreateSub(load_field(offsetof(abi::Context, stack), i64_), stack_before);
    B_.CreateStore(B_.CreateIntToPtr(B_.CreateAdd(B_.CreatePtrToInt(regs, i64_), moved), ptr_ty), regs_slot_);
    B_.CreateBr(reload);

    // Through the interpreter's call entry, which may also say no (the interpreter then runs it).
    B_.SetInsertPoint(indirect);
    auto* status = B_.CreateCall(call_type_, ctx_load(B_, offsetof(abi::Context, call), call_type_->getPointerTo()),
                                 {ctx_, callee, llvm::ConstantInt::get(i32_, a)});
    status->addFnAttr(llvm::Attribute::NoUnwind);
    auto* sw = B_.CreateSwitch(status, exit(int(k), true), 2);
    sw->addCase(llvm::ConstantInt::get(i32_, abi::kCallReturned), returned);
    sw->addCase(llvm::ConstantInt::get(i32_, abi::kCallFailed), failed);
    B_.SetInsertPoint(returned);
    B_.CreateStore(load_field(offsetof(abi::Context, regs), ptr_ty), regs_slot_);
    B_.CreateBr(reload);

    B_.SetInsertPoint(failed);  // the run is over: nothing to store
    B_.CreateRet(llvm::ConstantInt::get(i64_, abi::exit_code(int(k), true) | abi::kFailedFlag));
    B_.SetInsertPoint(reload);
    if (checked) B_.CreateStore(tagged(B_.CreateLoad(i64_, counted(B_)), tbaa_count_), count_slot_);
    B_.CreateBr(go(next));
    calls_.push_back({start, reload, a});
  }
  // A call at instruction k of a function inlined here (its code in the page's key words): the
  // interpreter's checks (defined, call depth, one budget tick and cancellation), then the callee's
  // code with registers of its own, its arguments copied in. Nothing is pushed; whatever stops the
  // callee hands the whole call to the interpreter (see exit()). The tick is kept only once the
  // callee returned, so the interpreter's run of the call counts it once.
  void inline_call(std::size_t k, int a, std::uint32_t function, int next) {
    const Callee& callee = callees_.at(function);
    const std::string at = std::to_string(k);
    auto* body = llvm::BasicBlock::Create(C_, "inline" + at, F_);
    auto* done = llvm::BasicBlock::Create(C_, "inlined" + at, F_);
    llvm::Value* ok = inline_allowed(function);
    llvm::Value* count = nullptr;
    if (req_.mode == abi::JitMode::kChecked) {
      count = B_.CreateAdd(B_.CreateLoad(i64_, count_slot_), llvm::ConstantInt::get(i64_, 1));
      ok = B_.CreateAnd(ok, B_.CreateNot(tick_stops(B_, count)));
    }
    B_.CreateCondBr(ok, body, exit(int(k), true));

    Inline frame{k, a, exit(int(k), true), done, {}, &callee.arrays};
    std::map<std::size_t, llvm::BasicBlock*> callee_blocks;
    for (std::size_t j = 0; j < kPageWords; ++j)
      if (callee.shape.starts[j])
        callee_blocks[j] = llvm::BasicBlock::Create(C_, "i" + at + "w" + std::to_string(j), F_);
    B_.SetInsertPoint(body);
    B_.CreateBr(callee_blocks.at(0));
    const auto page_words = std::exchange(words_, std::span<const std::uint32_t>(callee.words));
    const jit::PageShape* page_shape = std::exchange(shape_, &callee.shape);
    std::swap(blocks_, callee_blocks);
    inline_ = &frame;
    for (const auto& [j, block] : blocks_) emit_instruction(j);
    inline_ = nullptr;
    std::swap(blocks_, callee_blocks);
    words_ = page_words;
    shape_ = page_shape;

    // The callee's registers start as its arguments (the rest as zero: it writes before it reads).
    llvm::IRBuilder<> start(body->getTerminator());
    for (const auto& [r, home] : frame.regs)
      store_slot(start, r < callee.params ? slot_bits(start, slot(a + r)) : llvm::ConstantInt::get(i64_, 0), home);
    B_.SetInsertPoint(done);
    if (count) B_.CreateStore(count, count_slot_);
    B_.CreateBr(go(next));
  }

  // Whether the callee is defined and one more frame fits, decided once per entry of the page: while
  // it runs, the frame count is the same at each of its instructions (calls return to it), and a
  // function once defined stays defined (one defined later is only inlined from the next entry on).
  llvm::Value* inline_allowed(std::uint32_t function) {
    auto& allowed = inline_allowed_[function];
    if (allowed) return allowed;
    if (!frame_room_)
      frame_room_ = entry_builder_.CreateICmpULT(entry_field(offsetof(abi::Context, frame_count), i64_),
                                                 entry_field(offsetof(abi::Context, frame_limit), i64_));
    auto* defined = entry_field(offsetof(abi::Context, defined), i8_->getPointerTo());
    auto* is_defined =
        entry_builder_.CreateLoad(i8_, entry_builder_.CreateConstInBoundsGEP1_64(i8_, defined, function));
    allowed =
        entry_builder_.CreateAnd(entry_builder_.CreateICmpNE(is_defined, llvm::ConstantInt::get(i8_, 0)), frame_room_);
    return allowed;
  }

  // Before a call, the registers from a up that this page wrote go to memory (the others are there
  // already); after it, the result is read back. The registers above a are the callee's frame: the
  // bytecode never reads one after a call before writing it (the interpreter's callee overwrites
  // them too), so their values here need not follow memory.
  void finish_calls() {
    for (const CallSite& call : calls_) {
      llvm::IRBuilder<> before(&*call.start->getFirstInsertionPt());
      auto* regs = current_regs(before);
      for (int r : written_)
        if (r >= call.a)
          tagged(before.CreateStore(slot_bits(before, slots_.at(r)), reg_ptr(before, regs, r)), tbaa_reg_);
      llvm::IRBuilder<> after(call.reload->getTerminator());
      auto* result = tagged(after.CreateLoad(i64_, reg_ptr(after, current_regs(after), call.a)), tbaa_reg_);
      store_slot(after, result, slot(call.a));
    }
  }
  llvm::Value* load_field(std::size_t offset, llvm::Type* type) { return ctx_load(B_, offset, type); }
  void store_field(std::size_t offset, llvm::Value* value) {
    tagged(B_.CreateStore(value, field_addr_at(B_, offset, value->getType())), tbaa_context_);
  }
  // A context field, loaded where it is used: nothing stays live across the page for it (a call
  // would spill it), and loads between calls fold into one (only calls and context stores alias).
  llvm::Value* ctx_load(llvm::IRBuilder<>& b, std::size_t offset, llvm::Type* type) {
    return tagged(b.CreateLoad(type, field_addr_at(b, offset, type)), tbaa_context_);
  }
  llvm::Value* counted(llvm::IRBuilder<>& b) {
    return ctx_load(b, offsetof(abi::Context, counted), i64_->getPointerTo());
  }
  llvm::Value* module_ptr() { return ctx_load(B_, offsetof(abi::Context, module), i64_->getPointerTo()); }
  llvm::Value* field_addr_at(llvm::IRBuilder<>& b, std::size_t offset, llvm::Type* pointee) {
    return b.CreateBitCast(b.CreateConstInBoundsGEP1_64(i8_, ctx_, offset), pointee->getPointerTo());
  }

  void emit_instruction(std::size_t k) {
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
        set_raw(a, llvm::ConstantInt::get(i64_, bits));
        break;
      }
      case Op::kLoadB: set_num(a, real(b)); break;
      case Op::kMove: set_raw(a, raw(b)); break;
      case Op::kGetMod:
        set_raw(a, tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, module_ptr(), jit::ud_of(w))),
                          tbaa_module_));
        break;
      case Op::kSetMod:
        tagged(B_.CreateStore(raw(a), B_.CreateConstInBoundsGEP1_64(i64_, module_ptr(), jit::ud_of(w))), tbaa_module_);
        break;
      case Op::kAdd: set_num(a, B_.CreateFAdd(num(b), num(c))); break;
      case Op::kSub: set_num(a, B_.CreateFSub(num(b), num(c))); break;
      case Op::kMul: set_num(a, B_.CreateFMul(num(b), num(c))); break;
      case Op::kDiv: set_num(a, B_.CreateFDiv(num(b), num(c))); break;
      case Op::kMod: set_num(a, lua_mod(num(b), num(c))); break;
      case Op::kPow: set_num(a, helper(abi::kHelperPow, num(b), num(c))); break;
      case Op::kNeg: set_num(a, B_.CreateFNeg(num(b))); break;
      case Op::kNot: set_num(a, flag(B_.CreateFCmpOEQ(num(b), real(0)))); break;
      case Op::kEq: set_num(a, flag(B_.CreateFCmpOEQ(num(b), num(c)))); break;
      case Op::kLt: set_num(a, flag(B_.CreateFCmpOLT(num(b), num(c)))); break;
      case Op::kLe: set_num(a, flag(B_.CreateFCmpOLE(num(b), num(c)))); break;
      case Op::kEqRef: set_num(a, flag(B_.CreateICmpEQ(raw(b), raw(c)))); break;
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
        set_num(a, B_.CreateFSub(num(a), num(a + 2)));
        B_.CreateBr(go(int(k) + 1 + jit::d_of(w)));
        return;
      case Op::kForLoop: {
        auto* step = num(a + 2);
        auto* v = B_.CreateFAdd(num(a), step);
        set_num(a, v);
        auto* limit = num(a + 1);
        auto* more =
            B_.CreateSelect(B_.CreateFCmpOGT(step, real(0)), B_.CreateFCmpOLE(v, limit), B_.CreateFCmpOGE(v, limit));
        auto* body = llvm::BasicBlock::Create(C_, "loop" + std::to_string(k), F_);
        B_.CreateCondBr(more, body, go(next));
        B_.SetInsertPoint(body);
        set_num(a + 3, v);
        B_.CreateBr(branch_to(k, int(k) + 1 + jit::d_of(w)));
        return;
      }
      case Op::kGetI: set_raw(a, tagged(B_.CreateLoad(i64_, element(k, b, num(c))), tbaa_element_)); break;
      case Op::kSetI: {
        auto* value = raw(c);
        tagged(B_.CreateStore(value, element(k, a, num(b), value)), tbaa_element_);
        break;
      }
      case Op::kAppend: append(k, a, raw(b), next); return;
      case Op::kLen: {
        auto* base = B_.CreateIntToPtr(raw(b), llvm::Type::getInt64PtrTy(C_));
        set_num(a, B_.CreateSIToFP(
                       tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 1)), tbaa_header_), f64_));
        break;
      }
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
        set_num(a, result);
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
      case Op::kAddK: set_num(a, B_.CreateFAdd(num(b), real(jit::constant_operand(page.data(), k)))); break;
      case Op::kSubK: set_num(a, B_.CreateFSub(num(b), real(jit::constant_operand(page.data(), k)))); break;
      case Op::kMulK: set_num(a, B_.CreateFMul(num(b), real(jit::constant_operand(page.data(), k)))); break;
      case Op::kDivK: set_num(a, B_.CreateFDiv(num(b), real(jit::constant_operand(page.data(), k)))); break;
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
      case Op::kCall:
        if (!inline_ && callees_.count(jit::ud_of(w))) {
          inline_call(k, a, jit::ud_of(w), next);
          return;
        }
        emit_call(k, a, llvm::ConstantInt::get(i32_, jit::ud_of(w)), next);
        return;
      case Op::kCallR: {
        // The function value is a whole number; a saturating conversion keeps anything else defined.
        auto* fn =
            B_.CreateCall(llvm::Intrinsic::getDeclaration(&M_, llvm::Intrinsic::fptoui_sat, {i32_, f64_}), {num(b)});
        emit_call(k, a, fn, next);
        return;
      }
      case Op::kRet:
      case Op::kRet0: {
        if (inline_) {  // the result goes to the caller's register, and the caller goes on
          llvm::Value* result = jit::op_of(w) == Op::kRet ? raw(a) : llvm::ConstantInt::get(i64_, 0);
          Inline* callee = std::exchange(inline_, nullptr);
          set_raw(callee->a, result);
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
      default:  // printing, host calls, allocation: the interpreter's
        B_.CreateBr(exit(int(k), true));
        return;
    }
    B_.CreateBr(go(next));
  }

  llvm::LLVMContext& C_;
  llvm::Module& M_;
  llvm::IRBuilder<> B_, entry_builder_;
  const jit::PageRequest& req_;
  std::span<const std::uint32_t> words_;  // the code being emitted: the page, or an inlined callee's
  const jit::PageShape* shape_;
  EmitOptions options_;
  struct Callee {  // a function inlined where this page calls it
    int params = 0;
    std::vector<std::uint32_t> words;  // its code, padded to a page
    jit::PageShape shape;
    jit::RegisterSet arrays;  // its registers used as arrays
  };
  std::map<std::uint32_t, Callee> callees_;
  struct Inline {                           // the inlined call being emitted
    std::size_t k;                          // the call instruction
    int a;                                  // its first argument register, where the result goes
    llvm::BasicBlock* bail;                 // the interpreter runs the call
    llvm::BasicBlock* done;                 // the callee returned
    std::map<int, llvm::AllocaInst*> regs;  // the callee's registers
    const jit::RegisterSet* arrays;         // those used as arrays
  };
  Inline* inline_ = nullptr;
  llvm::Value* frame_room_ = nullptr;                     // frame_count < frame_limit at entry
  std::map<std::uint32_t, llvm::Value*> inline_allowed_;  // per inlined callee
  llvm::IntegerType *i8_ = nullptr, *i32_ = nullptr, *i64_ = nullptr;
  llvm::Type* f64_ = nullptr;
  llvm::FunctionType* helper_type_ = nullptr;
  llvm::FunctionType* call_type_ = nullptr;
  llvm::Function* F_ = nullptr;
  llvm::Value *ctx_ = nullptr, *entry_arg_ = nullptr;
  llvm::AllocaInst* count_slot_ = nullptr;
  llvm::MDNode *tbaa_reg_ = nullptr, *tbaa_module_ = nullptr, *tbaa_header_ = nullptr, *tbaa_element_ = nullptr,
               *tbaa_count_ = nullptr, *tbaa_context_ = nullptr, *tbaa_elements_ = nullptr;
  struct CallSite {
    llvm::BasicBlock* start;   // the registers from a up are stored at its start
    llvm::BasicBlock* reload;  // and read back here
    int a;
  };
  std::vector<CallSite> calls_;
  struct ReturnSite {
    llvm::BasicBlock* block;
    std::size_t k;
    int value;  // the register returned; -1: nothing (0)
  };
  std::vector<ReturnSite> returns_;
  llvm::AllocaInst* regs_slot_ = nullptr;
  llvm::Value *regs_ = nullptr, *budget_ = nullptr;
  std::map<int, llvm::AllocaInst*> slots_;
  jit::RegisterSet arrays_;  // the page's registers used as arrays (integer homes)
  std::set<int> written_;
  std::map<std::size_t, llvm::BasicBlock*> blocks_;
  std::map<std::pair<int, bool>, llvm::BasicBlock*> exits_;
};

}  // namespace

Result<std::vector<std::uint16_t>> emit_page(llvm::Module& module, const jit::PageRequest& request,
                                             const jit::PageShape& shape, const EmitOptions& options) {
  auto callees = jit::inline_callees(request.words);
  if (!callees) return callees.error();
  Emitter emitter(module, request, shape, *callees, options);
  return emitter.run();
}

}  // namespace kiln::jitc
