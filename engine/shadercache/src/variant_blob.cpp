#include "variant_blob.h"

#include <cstring>

#include <nlohmann/json.hpp>

namespace kiln::shadercache {

using nlohmann::json;

cache::Bytes encode_variant(const CompiledVariant& v) {
  json stages = json::array();
  for (const auto& s : v.stages) {
    std::vector<std::uint8_t> words(s.spirv.size() * 4);
    if (!words.empty()) std::memcpy(words.data(), s.spirv.data(), words.size());
    stages.push_back({{"stage", s.stage},
                      {"file", s.file},
                      {"spirv", json::binary(std::move(words))},
                      {"reflection", s.reflection_text},
                      {"backend_source", s.backend_source},
                      {"warnings", s.warnings}});
  }
  const json doc = {{"format", kVariantBlobFormat}, {"stages", stages}, {"dependencies", v.dependencies}};
  const std::vector<std::uint8_t> cbor = json::to_cbor(doc);
  cache::Bytes out(cbor.size());
  std::memcpy(out.data(), cbor.data(), cbor.size());
  return out;
}

std::optional<CompiledVariant> decode_variant(const cache::Bytes& bytes) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const json doc = json::from_cbor(begin, begin + bytes.size(), true, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  CompiledVariant v;
  try {
    // Compared as JSON: get<int>() of a float past int's range would be undefined.
    if (doc.at("format") != kVariantBlobFormat) return std::nullopt;
    for (const auto& s : doc.at("stages")) {
      CompiledStage stage;
      stage.stage = s.at("stage").get<std::string>();
      stage.file = s.at("file").get<std::string>();
      const auto& words = s.at("spirv").get_binary();
      if (words.size() % 4 != 0) return std::nullopt;
      stage.spirv.resize(words.size() / 4);
      if (!words.empty()) std::memcpy(stage.spirv.data(), words.data(), words.size());
      stage.reflection_text = s.at("reflection").get<std::string>();
      auto reflection = runtime::decode_reflection(stage.reflection_text, stage.file);
      if (!reflection) return std::nullopt;
      stage.reflection = std::move(*reflection);
      stage.backend_source = s.at("backend_source").get<std::string>();
      stage.warnings = s.at("warnings").get<std::string>();
      v.stages.push_back(std::move(stage));
    }
    v.dependencies = doc.at("dependencies").get<std::vector<std::string>>();
    if (v.stages.empty()) return std::nullopt;
  } catch (const json::exception&) {
    return std::nullopt;
  }
  v.from_disk = true;
  return v;
}

}  // namespace kiln::shadercache
