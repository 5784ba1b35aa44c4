#pragma once
// The IR builder of one page (emit_page in page_emitter.h): its state and its small helpers. The page
// function and its instructions are built in page_emitter.cpp, calls (direct, through the
// interpreter, inlined) in page_calls.cpp.
//
// Thread-safety: one Emitter per page compile, on the compiling thread.

#include <llvm/ADT/Triple.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kiln/jit/counted_loops.h"
#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/register_liveness.h"
#include "page_emitter.h"

namespace kiln::jitc::detail {

using jit::kPageWords;
using jit::Op;
namespace abi = jit::abi;

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
      c.for_values = callee.for_values;
      c.leaf = jit::inlinable(callee.code);
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
        case Op::kNewArr:
        case Op::kAppend:
        case Op::kSetI: arrays.set(jit::a_of(w)); break;
        case Op::kGetI:
        case Op::kLen: arrays.set(jit::b_of(w)); break;
        case Op::kEqRef: arrays.set(jit::b_of(w)), arrays.set(jit::c_of(w)); break;
        case Op::kGetF: arrays.set(jit::b_of(w)); break;
        case Op::kSetF: arrays.set(jit::a_of(w)); break;
        case Op::kGetCell:
        case Op::kGetUp:
        case Op::kLenS:
        case Op::kCallR: arrays.set(jit::b_of(w)); break;
        case Op::kSetCell:
        case Op::kSetUp: arrays.set(jit::a_of(w)); break;
        default: break;
      }
    }
    return arrays;
  }

  // The registers every instruction of the page that writes them writes a number or a boolean to:
  // they never hold a reference the collector needs (finish_calls).
  static jit::RegisterSet number_registers(std::span<const std::uint32_t> words, const jit::PageShape& shape) {
    jit::RegisterSet numbers, others;
    for (std::size_t k = 0; k < kPageWords; ++k) {
      if (!shape.starts[k] || shape.straddles[k] || jit::instruction_words(words, k) == 0) continue;
      const bool number = jit::writes_only_numbers(jit::op_of(words[k]));
      const jit::RegisterSet written = jit::written_registers(words, k);
      (number ? numbers : others) |= written;
    }
    return numbers & ~others;
  }

  std::vector<std::uint16_t> run();

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
  // Register r = v (a number or the bits of an array reference: the home converts).
  void set(int r, llvm::Value* v) {
    if (!inline_) written_.insert(r);
    store_slot(B_, v, slot(r));
  }
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
  // Whether a tick that brings the budget counter to `count` must stop: over a set budget, or
  // cancelled (the interpreter then runs the instruction and reports it).
  llvm::Value* tick_stops(llvm::IRBuilder<>& b, llvm::Value* count) {
    return b.CreateOr(b.CreateICmpUGT(count, budget_), b.CreateICmpNE(cancel_flag(b), llvm::ConstantInt::get(i8_, 0)));
  }
  // The cancellation flag, read anew at each tick. As an atomic load it would count as a write to
  // all memory for the optimizer and keep every load of a loop (array bounds, registers) inside it;
  // on x86-64 it is a one-instruction asm that touches only memory the optimizer cannot see, which
  // is never moved out of the loop or merged, and orders nothing else. A byte load is atomic there.
  llvm::Value* cancel_flag(llvm::IRBuilder<>& b) {
    if (!flag_read_ && llvm::Triple(M_.getTargetTriple()).getArch() == llvm::Triple::x86_64)
      flag_read_ = llvm::InlineAsm::get(llvm::FunctionType::get(i8_, {i8_->getPointerTo()}, false), "movb ($1), $0",
                                        "=r,r", /*hasSideEffects=*/true);
    if (flag_read_) {
      auto* call = b.CreateCall(flag_read_->getFunctionType(), flag_read_, {cancelled_});
      call->addFnAttr(llvm::Attribute::InaccessibleMemOnly);
      call->addFnAttr(llvm::Attribute::NoUnwind);
      return call;
    }
    auto* flag = b.CreateLoad(i8_, cancelled_);
    flag->setAtomic(llvm::AtomicOrdering::Monotonic);
    flag->setAlignment(llvm::Align(1));
    return flag;
  }
  // A backward branch from instruction k to `target`: in checked mode it counts against the budget
  // and looks at the cancellation flag first; if either stops it, the interpreter runs the branch
  // (and reports the error with its line).
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
  // at #arr + 1 appends it instead, within the array's capacity, and goes on at k's successor. An
  // access of a counted loop (counted_loops.h) whose range was proven at the loop's start skips
  // the check.
  llvm::Value* element(std::size_t k, int arr, llvm::Value* index, llvm::Value* appended = nullptr) {
    const ArrayHeader h = header(arr);
    // x86's truncating conversion (defined for every input, unlike LLVM's fptosi) gives INT64_MIN for
    // NaN and anything out of range. The index is whole when the integer converts back to it (never
    // for INT64_MIN unless the index is -2^63, whose i - 1 wraps past any size), and in [1, size]
    // when i - 1 is below size, unsigned. Compiled code is x86-64 only (object_linker).
    auto* vector =
        B_.CreateInsertElement(llvm::UndefValue::get(llvm::FixedVectorType::get(f64_, 2)), index, std::uint64_t{0});
    auto* whole = B_.CreateCall(llvm::Intrinsic::getDeclaration(&M_, llvm::Intrinsic::x86_sse2_cvttsd2si64), {vector});
    auto* i = B_.CreateSub(whole, llvm::ConstantInt::get(i64_, 1));
    auto* in_range = llvm::BasicBlock::Create(C_, "in" + std::to_string(k), F_);
    if (const auto proven = in_range_at_.find(k); !inline_ && proven != in_range_at_.end()) {
      auto* check = llvm::BasicBlock::Create(C_, "check" + std::to_string(k), F_);
      B_.CreateCondBr(B_.CreateLoad(B_.getInt1Ty(), proven->second), in_range, check);
      B_.SetInsertPoint(check);
    }
    auto* is_whole = B_.CreateFCmpOEQ(B_.CreateSIToFP(whole, f64_), index);
    auto* ok = B_.CreateAnd(is_whole, B_.CreateICmpULT(i, h.size));
    llvm::BasicBlock* outside = exit(int(k), true);
    if (appended) {
      outside = llvm::BasicBlock::Create(C_, "outside" + std::to_string(k), F_);
      B_.CreateCondBr(ok, in_range, outside);
      B_.SetInsertPoint(outside);
      auto* at_end = B_.CreateAnd(is_whole, B_.CreateICmpEQ(i, h.size));
      auto* appending = llvm::BasicBlock::Create(C_, "appending" + std::to_string(k), F_);
      B_.CreateCondBr(at_end, appending, exit(int(k), true));
      B_.SetInsertPoint(appending);
      push(k, h, appended);
      B_.CreateBr(go(int(k + 1)));
    } else {
      B_.CreateCondBr(ok, in_range, outside);
    }
    B_.SetInsertPoint(in_range);
    return B_.CreateInBoundsGEP(i64_, h.data, i);
  }
  // Sets counted loop `loop`'s flag of each array in `loaded`: whether, from the loop variable's
  // value `first` on (and the registers as they are where `b` is), every value is whole and within
  // [1, #array]. The values run from `first` by the step while not past the limit (FORLOOP: above
  // it when the step is positive, else below it), and an array only grows; a value that is whole
  // stays exact in that range. NaN fails every comparison.
  void prove_in_range(llvm::IRBuilder<>& b, std::size_t loop, llvm::Value* first, const jit::RegisterSet& loaded);

  // The address of field `index` of the record in register `record` (jit_abi.h).
  llvm::Value* field(int record, unsigned index) {
    auto* base = B_.CreateIntToPtr(raw(record), llvm::Type::getInt64PtrTy(C_));
    return B_.CreateConstInBoundsGEP1_64(i64_, base, abi::kRecordFieldsOffset / sizeof(abi::Value) + index);
  }

  // The value of the cell in register `r`, and of upvalue `index` of the closure in register
  // `closure` (jit_abi.h).
  llvm::Value* cell(int r) { return B_.CreateIntToPtr(raw(r), llvm::Type::getInt64PtrTy(C_)); }
  llvm::Value* upvalue(int closure, unsigned index) {
    auto* base = B_.CreateIntToPtr(raw(closure), llvm::Type::getInt64PtrTy(C_));
    auto* cell_bits =
        tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, abi::kClosureCellsOffset / 8 + index)),
               tbaa_cell_);
    return B_.CreateIntToPtr(cell_bits, llvm::Type::getInt64PtrTy(C_));
  }

  // An array register's header (abi::ArrayData): where it is, its elements and their count.
  struct ArrayHeader {
    llvm::Value *base, *data, *size;
  };
  ArrayHeader header(int arr) {
    auto* base = B_.CreateIntToPtr(raw(arr), llvm::Type::getInt64PtrTy(C_));
    auto* data =
        B_.CreateIntToPtr(tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 0)), tbaa_header_),
                          llvm::Type::getInt64PtrTy(C_));
    return {base, data, tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, base, 1)), tbaa_header_)};
  }
  // Stores `value` after the array's last element, when its capacity and the element budget allow
  // (else the interpreter runs instruction k, which grows the storage or reports the budget).
  void push(std::size_t k, const ArrayHeader& h, llvm::Value* value) {
    auto* capacity = tagged(B_.CreateLoad(i64_, B_.CreateConstInBoundsGEP1_64(i64_, h.base, 2)), tbaa_header_);
    auto* counter = ctx_load(B_, offsetof(abi::Context, elements), i64_->getPointerTo());
    auto* created = tagged(B_.CreateLoad(i64_, counter), tbaa_elements_);
    auto* room = B_.CreateAnd(B_.CreateICmpULT(h.size, capacity),
                              B_.CreateICmpULT(created, ctx_load(B_, offsetof(abi::Context, max_elements), i64_)));
    auto* store = llvm::BasicBlock::Create(C_, "push" + std::to_string(k), F_);
    B_.CreateCondBr(room, store, exit(int(k), true));
    B_.SetInsertPoint(store);
    tagged(B_.CreateStore(value, B_.CreateInBoundsGEP(i64_, h.data, h.size)), tbaa_element_);
    tagged(B_.CreateStore(B_.CreateAdd(h.size, llvm::ConstantInt::get(i64_, 1)),
                          B_.CreateConstInBoundsGEP1_64(i64_, h.base, 1)),
           tbaa_header_);
    tagged(B_.CreateStore(B_.CreateAdd(created, llvm::ConstantInt::get(i64_, 1)), counter), tbaa_elements_);
  }
  // APPEND at k: the value goes after the array's last element.
  void append(std::size_t k, int arr, llvm::Value* value, int next) {
    push(k, header(arr), value);
    B_.CreateBr(go(next));
  }

  // A call at instruction k: the callee runs to its return while this page waits, then the page
  // goes on at `next` with the result in register a. Directly into the callee's code when it has
  // some and nothing stands in the way, else through ctx->call (see jit_abi.h). The arguments are
  // stored before and the result read after (finish_calls, once every register the page writes is
  // known).
  void emit_call(std::size_t k, int a, llvm::Value* callee, int next);
  // Instruction k, which allocates or compares strings, run by ctx->runtime_op with its words (a
  // constant of the page's code) after every register the page wrote is stored; its result, in
  // register a, is read back. When the runtime says no, the interpreter runs it.
  void runtime_op(std::size_t k, int a, int next);
  // A call at instruction k of a function inlined here (its code in the page's key words): the
  // interpreter's checks (defined, call depth, one budget tick and cancellation), then the callee's
  // code with registers of its own, its arguments copied in. Nothing is pushed; whatever stops the
  // callee hands the whole call to the interpreter (see exit()). The tick is kept only once the
  // callee returned, so the interpreter's run of the call counts it once. Inside an inlined callee
  // (a call of a leaf from a callee that is not one), the same with the outer call's count, frame
  // and stop: a stop runs the outer call again.
  void inline_call(std::size_t k, int a, std::uint32_t function, int next);

  // `return f(...)` at instruction k, `args` arguments from register a. When f is the running function
  // and this page is its first (its entry code is this code), the arguments become its first
  // registers and the page goes on at its start, after the tick a call takes: a loop, as the
  // interpreter's reuse of the frame. When f is the running function but this page is another of its
  // pages, the interpreter makes the call. Any other f: an ordinary call, the return follows.
  void tail_call(std::size_t k, int a, int args, std::uint32_t function, int next);

  // A call through the function value `fn` with `args` arguments: for each callee inlined for such
  // calls, a comparison of the value with it and its inlined code. Leaves the builder where the call
  // goes when the value is none of them.
  void inline_value_callees(std::size_t k, int a, int args, llvm::Value* fn, int next);

  // Whether the callee is defined and `depth` more frames fit, decided once per entry of the page:
  // while it runs, the frame count is the same at each of its instructions (calls return to it), and
  // a function once defined stays defined (one defined later is only inlined from the next entry on).
  llvm::Value* inline_allowed(std::uint32_t function, int depth);

  // Before a call, every register this page wrote goes to memory (the others are there already):
  // the arguments for the callee, the rest for the collector, which may run inside the call and
  // finds live references only in memory (jit_abi.h). After it, the result is read back. The
  // registers above a are the callee's frame: the bytecode never reads one after a call before
  // writing it (the interpreter's callee overwrites them too), so their values here need not follow
  // memory.
  void finish_calls();
  llvm::Value* load_field(std::size_t offset, llvm::Type* type) { return ctx_load(B_, offset, type); }
  void store_field(std::size_t offset, llvm::Value* value) {
    tagged(B_.CreateStore(value, field_addr_at(B_, offset, value->getType())), tbaa_context_);
  }
  // A context field, loaded where it is used: nothing stays live across the page for it (a call
  // would spill it), and loads between calls fold into one (only calls and context stores alias).
  // `ctx`: the context pointer of the function being built (the page's code's own by default).
  llvm::Value* ctx_load(llvm::IRBuilder<>& b, std::size_t offset, llvm::Type* type, llvm::Value* ctx = nullptr) {
    return tagged(b.CreateLoad(type, field_addr_at(b, offset, type, ctx)), tbaa_context_);
  }
  llvm::Value* counted(llvm::IRBuilder<>& b) {
    return ctx_load(b, offsetof(abi::Context, counted), i64_->getPointerTo());
  }
  llvm::Value* module_ptr() { return ctx_load(B_, offsetof(abi::Context, module), i64_->getPointerTo()); }
  llvm::Value* field_addr_at(llvm::IRBuilder<>& b, std::size_t offset, llvm::Type* pointee,
                             llvm::Value* ctx = nullptr) {
    return b.CreateBitCast(b.CreateConstInBoundsGEP1_64(i8_, ctx ? ctx : ctx_, offset), pointee->getPointerTo());
  }

  void emit_instruction(std::size_t k);
  // Returns from the page's code: the exit (jit_abi.h) and the budget count.
  void leave(llvm::Value* exit, llvm::Value* count);
  void leave(std::uint64_t exit, llvm::Value* count);
  // The page function of the ABI: loads the frame's registers and the count from the context,
  // runs the code, stores the count back.
  void emit_page_entry();

  llvm::LLVMContext& C_;
  llvm::Module& M_;
  llvm::IRBuilder<> B_, entry_builder_;
  const jit::PageRequest& req_;
  std::span<const std::uint32_t> words_;  // the code being emitted: the page, or an inlined callee's
  const jit::PageShape* shape_;
  EmitOptions options_;
  struct Callee {  // a function inlined where this page calls it
    int params = 0;
    bool for_values = false;
    bool leaf =
        false;  // no calls (else it calls leaves, inlined inside it)           // also where a call through a function value with `params` arguments reaches it
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
    Inline* outer;                          // the inlined call this one is inside, if any
    llvm::AllocaInst* count;                // checked mode: the budget count with this call's ticks
  };
  Inline* inline_ = nullptr;
  std::map<int, llvm::Value*> frame_room_;  // per depth: frame_count + depth <= frame_limit at entry
  std::map<std::pair<std::uint32_t, int>, llvm::Value*> inline_allowed_;  // per inlined callee and depth
  llvm::IntegerType *i8_ = nullptr, *i32_ = nullptr, *i64_ = nullptr;
  llvm::Type* f64_ = nullptr;
  llvm::FunctionType* helper_type_ = nullptr;
  llvm::FunctionType* call_type_ = nullptr;
  llvm::Function* F_ = nullptr;     // the page's code: (ctx, regs, count, entry) -> {exit, count}
  llvm::Function* page_ = nullptr;  // the page function of the ABI, which runs F_
  llvm::StructType* result_type_ = nullptr;
  llvm::Value *ctx_ = nullptr, *entry_arg_ = nullptr;
  llvm::Value *frame_count_ = nullptr, *native_left_ = nullptr;  // the context's, as they are while the page runs
  llvm::AllocaInst* count_slot_ = nullptr;
  llvm::MDNode *tbaa_reg_ = nullptr, *tbaa_module_ = nullptr, *tbaa_header_ = nullptr, *tbaa_element_ = nullptr,
               *tbaa_count_ = nullptr, *tbaa_context_ = nullptr, *tbaa_elements_ = nullptr, *tbaa_field_ = nullptr,
               *tbaa_cell_ = nullptr;
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
  llvm::InlineAsm* flag_read_ = nullptr;  // x86-64: the asm that reads the cancellation flag
  llvm::Value* cancelled_ = nullptr;      // the context's pointer to the cancellation flag, read at entry
  std::map<int, llvm::AllocaInst*> slots_;
  jit::RegisterSet arrays_;   // the page's registers used as arrays (integer homes)
  jit::RegisterSet numbers_;  // the page's registers that only ever hold numbers here
  std::set<int> written_;
  std::map<std::size_t, llvm::BasicBlock*> blocks_;
  std::vector<jit::CountedLoop> loops_;                              // the page's counted loops (counted_loops.h)
  std::map<std::pair<std::size_t, int>, llvm::AllocaInst*> proven_;  // per loop and array: its range is proven
  std::map<std::size_t, llvm::AllocaInst*> in_range_at_;             // per access of a counted loop: its flag
  std::map<std::pair<int, bool>, llvm::BasicBlock*> exits_;
};

}  // namespace kiln::jitc::detail
