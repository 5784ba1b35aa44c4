#include "object_linker.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cmath>
#include <cstring>
#include <map>

namespace kiln::jitc {
namespace {

// The few C library functions LLVM may still call for an operation it cannot inline.
void* known_symbol(std::string_view name) {
  static const std::map<std::string_view, void*> symbols = {
      {"fmod", reinterpret_cast<void*>(static_cast<double (*)(double, double)>(std::fmod))},
      {"pow", reinterpret_cast<void*>(static_cast<double (*)(double, double)>(std::pow))},
      {"floor", reinterpret_cast<void*>(static_cast<double (*)(double)>(std::floor))},
      {"ceil", reinterpret_cast<void*>(static_cast<double (*)(double)>(std::ceil))},
      {"trunc", reinterpret_cast<void*>(static_cast<double (*)(double)>(std::trunc))},
      {"memcpy", reinterpret_cast<void*>(&std::memcpy)},
      {"memset", reinterpret_cast<void*>(&std::memset)},
  };
  auto it = symbols.find(name);
  return it == symbols.end() ? nullptr : it->second;
}

std::string error_text(llvm::Error e) { return llvm::toString(std::move(e)); }

void put32(std::vector<std::uint8_t>& code, std::uint64_t at, std::int64_t v) {
  const auto v32 = static_cast<std::int32_t>(v);
  std::memcpy(&code[at], &v32, 4);
}

// One link: the object's sections laid out in `blob`, then its relocations resolved against them.
class PageLinker {
 public:
  explicit PageLinker(const llvm::object::ELF64LEObjectFile& elf) : elf_(elf) {}

  // Allocatable sections back to back, each at its alignment; unwind tables are left out.
  Status lay_out_sections() {
    for (const llvm::object::ELFSectionRef section : elf_.sections()) {
      if (!(section.getFlags() & llvm::ELF::SHF_ALLOC)) continue;
      auto name = section.getName();
      if (name && *name == ".eh_frame") continue;  // compiled pages never unwind
      const std::uint64_t align = std::max<std::uint64_t>(1, section.getAlignment());
      const std::uint64_t at = (blob_.code.size() + align - 1) / align * align;
      blob_.code.resize(at);
      if (section.isBSS()) {
        blob_.code.resize(at + section.getSize(), 0);
      } else {
        auto contents = section.getContents();
        if (!contents) return make_error("cannot read a section: " + error_text(contents.takeError()));
        blob_.code.insert(blob_.code.end(), contents->begin(), contents->end());
      }
      base_[section.getIndex()] = at;
      blob_.alignment = std::max<std::uint32_t>(blob_.alignment, static_cast<std::uint32_t>(align));
    }
    return {};
  }

  Status find_function(std::string_view function_name) {
    for (const llvm::object::SymbolRef& symbol : elf_.symbols()) {
      auto name = symbol.getName();
      if (!name || *name != llvm::StringRef(function_name.data(), function_name.size())) continue;
      auto section = symbol.getSection();
      auto value = symbol.getValue();
      if (!section || !value) return make_error("the page function's symbol is unreadable");
      // The file symbol may carry the same name: only the defined one counts.
      if (*section == elf_.section_end() || !base_.count((*section)->getIndex())) continue;
      blob_.function_offset = static_cast<std::uint32_t>(base_[(*section)->getIndex()] + *value);
      return {};
    }
    return make_error("the object has no page function");
  }

  Status relocate() {
    for (const llvm::object::SectionRef& relocs : elf_.sections()) {
      auto target = relocs.getRelocatedSection();
      if (!target) return make_error("bad relocation section: " + error_text(target.takeError()));
      if (*target == elf_.section_end() || !base_.count((*target)->getIndex())) continue;
      const std::uint64_t section_base = base_[(*target)->getIndex()];
      for (const llvm::object::ELFRelocationRef reloc : relocs.relocations())
        KILN_TRY(apply(reloc, section_base + reloc.getOffset()));
    }
    return {};
  }

  LinkedBlob take() { return std::move(blob_); }

 private:
  Status apply(const llvm::object::ELFRelocationRef& reloc, std::uint64_t place) {
    const std::uint64_t type = reloc.getType();
    auto addend = reloc.getAddend();
    if (!addend) return make_error("a relocation without addend");
    const auto symbol = reloc.getSymbol();
    auto symbol_section = symbol->getSection();
    if (!symbol_section) return make_error("a relocation against an unreadable symbol");
    std::int64_t S = 0;
    const bool external = *symbol_section == elf_.section_end();
    if (!external) {
      if (!base_.count((*symbol_section)->getIndex()))
        return make_error("a relocation into a section that is not loaded");
      auto value = symbol->getValue();
      if (!value) return make_error("a relocation against a symbol without value");
      S = std::int64_t(base_[(*symbol_section)->getIndex()] + *value);
    }
    auto name = symbol->getName();
    const std::string symbol_name = name ? name->str() : "?";
    switch (type) {
      case llvm::ELF::R_X86_64_PC32:
      case llvm::ELF::R_X86_64_PLT32: {
        if (external) {
          auto stub = outside(symbol_name, false);
          if (!stub) return stub.error();
          S = std::int64_t(*stub);
        }
        const std::int64_t v = S + *addend - std::int64_t(place);
        if (v != std::int32_t(v)) return make_error("a PC-relative relocation out of range");
        put32(blob_.code, place, v);
        return {};
      }
      case llvm::ELF::R_X86_64_PC64: {
        if (external) return make_error("a 64-bit PC-relative relocation to '" + symbol_name + "'");
        const std::int64_t v = S + *addend - std::int64_t(place);
        std::memcpy(&blob_.code[place], &v, 8);
        return {};
      }
      case llvm::ELF::R_X86_64_GOTPCREL:
      case llvm::ELF::R_X86_64_GOTPCRELX:
      case llvm::ELF::R_X86_64_REX_GOTPCRELX: {
        if (!external) return make_error("a GOT-relative relocation to an internal symbol");
        auto slot = outside(symbol_name, true);
        if (!slot) return slot.error();
        put32(blob_.code, place, std::int64_t(*slot) + *addend - std::int64_t(place));
        return {};
      }
      default:
        // Absolute addresses: the code would depend on where it is loaded.
        return make_error("relocation type " + std::to_string(type) + " (not position independent)");
    }
  }

  // A stub (calls) or an address slot (GOT loads) for a symbol outside the object, appended after
  // the sections once per name. It bakes an address into the code: the blob is not cacheable.
  Result<std::uint64_t> outside(const std::string& name, bool slot) {
    void* address = known_symbol(name);
    if (!address) return make_error("the code calls '" + name + "', which compiled pages may not use");
    blob_.cacheable = false;
    if (blob_.not_cacheable_reason.empty()) blob_.not_cacheable_reason = "needs '" + name + "' from outside the page";
    auto& table = slot ? slots_ : stubs_;
    if (auto it = table.find(name); it != table.end()) return it->second;
    const std::uint64_t at = (blob_.code.size() + 7) / 8 * 8;
    blob_.code.resize(at);
    const auto bits = reinterpret_cast<std::uint64_t>(address);
    if (slot) {  // the address itself, read by a GOT-relative load
      blob_.code.resize(at + 8);
      std::memcpy(&blob_.code[at], &bits, 8);
    } else {  // movabs rax, address; jmp rax
      const std::uint8_t stub[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};
      blob_.code.insert(blob_.code.end(), stub, stub + 12);
      std::memcpy(&blob_.code[at + 2], &bits, 8);
    }
    table[name] = at;
    return at;
  }

  const llvm::object::ELF64LEObjectFile& elf_;
  LinkedBlob blob_;
  std::map<std::uint64_t, std::uint64_t> base_;  // section index -> offset in the blob
  std::map<std::string, std::uint64_t> stubs_, slots_;
};

}  // namespace

Result<LinkedBlob> link_object(std::string_view object, std::string_view function_name) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "page"));
  if (!parsed) return make_error("cannot read the emitted object: " + error_text(parsed.takeError()));
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(parsed->get());
  if (!elf || elf->getArch() != llvm::Triple::x86_64)
    return make_error("the page linker handles x86-64 ELF objects only");
  PageLinker linker(*elf);
  KILN_TRY(linker.lay_out_sections());
  KILN_TRY(linker.find_function(function_name));
  KILN_TRY(linker.relocate());
  return linker.take();
}

}  // namespace kiln::jitc
