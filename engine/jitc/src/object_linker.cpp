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

}  // namespace

Result<LinkedBlob> link_object(std::string_view object, std::string_view function_name) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "page"));
  if (!parsed) return make_error("cannot read the emitted object: " + error_text(parsed.takeError()));
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(parsed->get());
  if (!elf || elf->getArch() != llvm::Triple::x86_64)
    return make_error("the page linker handles x86-64 ELF objects only");

  LinkedBlob blob;
  std::map<std::uint64_t, std::uint64_t> base;  // section index -> offset in the blob
  for (const llvm::object::ELFSectionRef section : elf->sections()) {
    if (!(section.getFlags() & llvm::ELF::SHF_ALLOC)) continue;
    auto name = section.getName();
    if (name && *name == ".eh_frame") continue;  // unwind tables: compiled pages never unwind
    const std::uint64_t align = std::max<std::uint64_t>(1, section.getAlignment());
    const std::uint64_t at = (blob.code.size() + align - 1) / align * align;
    blob.code.resize(at);
    if (section.isBSS()) {
      blob.code.resize(at + section.getSize(), 0);
    } else {
      auto contents = section.getContents();
      if (!contents) return make_error("cannot read a section: " + error_text(contents.takeError()));
      blob.code.insert(blob.code.end(), contents->begin(), contents->end());
    }
    base[section.getIndex()] = at;
    blob.alignment = std::max<std::uint32_t>(blob.alignment, static_cast<std::uint32_t>(align));
  }

  bool found = false;
  for (const llvm::object::SymbolRef& symbol : elf->symbols()) {
    auto name = symbol.getName();
    if (!name || *name != llvm::StringRef(function_name.data(), function_name.size())) continue;
    auto section = symbol.getSection();
    auto value = symbol.getValue();
    if (!section || !value) return make_error("the page function's symbol is unreadable");
    // The file symbol may carry the same name: only the defined one counts.
    if (*section == elf->section_end() || !base.count((*section)->getIndex())) continue;
    blob.function_offset = static_cast<std::uint32_t>(base[(*section)->getIndex()] + *value);
    found = true;
  }
  if (!found) return make_error("the object has no page function");

  // Stubs and address slots for symbols outside the object, appended after the sections.
  std::map<std::string, std::uint64_t> stubs, slots;
  auto outside = [&](const std::string& name, bool slot) -> Result<std::uint64_t> {
    void* address = known_symbol(name);
    if (!address) return make_error("the code calls '" + name + "', which compiled pages may not use");
    blob.cacheable = false;
    if (blob.not_cacheable_reason.empty()) blob.not_cacheable_reason = "needs '" + name + "' from outside the page";
    auto& table = slot ? slots : stubs;
    if (auto it = table.find(name); it != table.end()) return it->second;
    const std::uint64_t at = (blob.code.size() + 7) / 8 * 8;
    blob.code.resize(at);
    const auto bits = reinterpret_cast<std::uint64_t>(address);
    if (slot) {  // the address itself, read by a GOT-relative load
      blob.code.resize(at + 8);
      std::memcpy(&blob.code[at], &bits, 8);
    } else {  // movabs rax, address; jmp rax
      const std::uint8_t stub[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};
      blob.code.insert(blob.code.end(), stub, stub + 12);
      std::memcpy(&blob.code[at + 2], &bits, 8);
    }
    table[name] = at;
    return at;
  };

  for (const llvm::object::SectionRef& relocs : elf->sections()) {
    auto target = relocs.getRelocatedSection();
    if (!target) return make_error("bad relocation section: " + error_text(target.takeError()));
    if (*target == elf->section_end() || !base.count((*target)->getIndex())) continue;
    const std::uint64_t section_base = base[(*target)->getIndex()];
    for (const llvm::object::ELFRelocationRef reloc : relocs.relocations()) {
      const std::uint64_t type = reloc.getType();
      const std::uint64_t place = section_base + reloc.getOffset();
      auto addend = reloc.getAddend();
      if (!addend) return make_error("a relocation without addend");
      const auto symbol = reloc.getSymbol();
      auto symbol_section = symbol->getSection();
      if (!symbol_section) return make_error("a relocation against an unreadable symbol");
      std::int64_t S = 0;
      const bool external = *symbol_section == elf->section_end();
      if (!external) {
        if (!base.count((*symbol_section)->getIndex())) return make_error("a relocation into a section that is not loaded");
        auto value = symbol->getValue();
        if (!value) return make_error("a relocation against a symbol without value");
        S = std::int64_t(base[(*symbol_section)->getIndex()] + *value);
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
          put32(blob.code, place, v);
          break;
        }
        case llvm::ELF::R_X86_64_PC64: {
          if (external) return make_error("a 64-bit PC-relative relocation to '" + symbol_name + "'");
          const std::int64_t v = S + *addend - std::int64_t(place);
          std::memcpy(&blob.code[place], &v, 8);
          break;
        }
        case llvm::ELF::R_X86_64_GOTPCREL:
        case llvm::ELF::R_X86_64_GOTPCRELX:
        case llvm::ELF::R_X86_64_REX_GOTPCRELX: {
          if (!external) return make_error("a GOT-relative relocation to an internal symbol");
          auto slot = outside(symbol_name, true);
          if (!slot) return slot.error();
          put32(blob.code, place, std::int64_t(*slot) + *addend - std::int64_t(place));
          break;
        }
        default:
          // Absolute addresses: the code would depend on where it is loaded.
          return make_error("relocation type " + std::to_string(type) + " (not position independent)");
      }
    }
  }
  return blob;
}

}  // namespace kiln::jitc
