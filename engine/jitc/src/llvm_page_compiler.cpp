#include "kiln/jitc/llvm_page_compiler.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>

#include "object_linker.h"
#include "page_emitter.h"

namespace kiln::jitc {
namespace {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();  // the cancellation flag's read is an inline asm
  });
}

std::string host_features() {
  llvm::StringMap<bool> features;
  std::string out;
  if (!llvm::sys::getHostCPUFeatures(features)) return out;
  std::vector<std::string> on;
  for (const auto& f : features)
    if (f.getValue()) on.push_back("+" + f.getKey().str());
  std::sort(on.begin(), on.end());  // StringMap order is not stable
  for (const auto& f : on) out += (out.empty() ? "" : ",") + f;
  return out;
}

llvm::CodeGenOpt::Level codegen_level(int opt) {
  switch (opt) {
    case 0: return llvm::CodeGenOpt::None;
    case 1: return llvm::CodeGenOpt::Less;
    case 3: return llvm::CodeGenOpt::Aggressive;
    default: return llvm::CodeGenOpt::Default;
  }
}

// One TargetMachine per thread: they are not safe to share, and costly to make per page.
Result<llvm::TargetMachine*> thread_target_machine(int opt_level) {
  thread_local std::unique_ptr<llvm::TargetMachine> machine;
  thread_local int machine_level = -1;
  if (machine && machine_level == opt_level) return machine.get();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return make_error("no LLVM target for " + triple + ": " + error);
  llvm::TargetOptions options;
  machine.reset(target->createTargetMachine(triple, llvm::sys::getHostCPUName(), host_features(), options,
                                            llvm::Reloc::PIC_, llvm::CodeModel::Small, codegen_level(opt_level)));
  if (!machine) return make_error("cannot create an LLVM target machine for " + triple);
  machine_level = opt_level;
  return machine.get();
}

void optimize(llvm::Module& module, llvm::TargetMachine* machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                        : opt_level == 1 ? llvm::OptimizationLevel::O1
                                        : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

}  // namespace

LlvmPageCompiler::LlvmPageCompiler(LlvmCompilerOptions options) : options_(options) { initialize_llvm(); }
LlvmPageCompiler::~LlvmPageCompiler() = default;

std::string LlvmPageCompiler::host_target() {
  initialize_llvm();
  return llvm::sys::getProcessTriple() + " " + llvm::sys::getHostCPUName().str() + " " + host_features();
}

std::string LlvmPageCompiler::fingerprint() const {
  return std::string("llvm ") + LLVM_VERSION_STRING + "; O" + std::to_string(options_.opt_level) + "; pic small" +
         (options_.frem_libcall ? "; frem-libcall" : "") + "; " + host_target();
}

Result<jit::CompiledPage> LlvmPageCompiler::compile(const jit::PageRequest& request) {
  auto machine = thread_target_machine(options_.opt_level);
  if (!machine) return machine.error();
  if (request.words.size() < jit::kPageWords)
    return make_error("a page has " + std::to_string(jit::kPageWords) + " words, not " +
                      std::to_string(request.words.size()));
  const jit::PageShape shape = jit::analyze_page(request.words.first(jit::kPageWords), request.entries);
  llvm::LLVMContext context;
  llvm::Module module("page", context);
  module.setTargetTriple((*machine)->getTargetTriple().str());
  module.setDataLayout((*machine)->createDataLayout());
  auto served = emit_page(module, request, shape, {.frem_libcall = options_.frem_libcall});
  if (!served) return served.error();
  std::string verify_errors;
  llvm::raw_string_ostream verify_out(verify_errors);
  if (llvm::verifyModule(module, &verify_out)) return make_error("invalid IR for a page: " + verify_out.str());
  optimize(module, *machine, options_.opt_level);

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream object_out(object);
  llvm::legacy::PassManager emit;
  if ((*machine)->addPassesToEmitFile(emit, object_out, nullptr, llvm::CGFT_ObjectFile))
    return make_error("LLVM cannot emit an object for this target");
  emit.run(module);

  auto linked = link_object(std::string_view(object.data(), object.size()), kPageFunctionName);
  if (!linked) return linked.error();
  jit::CompiledPage page;
  page.code = std::move(linked->code);
  page.function_offset = linked->function_offset;
  page.alignment = linked->alignment;
  page.cacheable = linked->cacheable;
  page.not_cacheable_reason = std::move(linked->not_cacheable_reason);
  page.entries = std::move(*served);
  page.used_words.assign(jit::kPageWords / 8, 0);
  for (std::size_t k = 0; k < jit::kPageWords; ++k)
    if (shape.used[k]) page.used_words[k / 8] |= std::uint8_t(1u << (k % 8));
  return page;
}

}  // namespace kiln::jitc
