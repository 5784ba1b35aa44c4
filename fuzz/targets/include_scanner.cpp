// The include scanner the content key is built from: every `#include` a source may read, comments
// and continuations handled. It may find more than the preprocessor reads, never less.
#include "fuzz_target.h"
#include "kiln/shadercache/include_scan.h"

KILN_FUZZ_TARGET(include_scanner) {
  const auto names = kiln::shadercache::scan_include_names(kiln::fuzz::as_text(data));
  for (const auto& n : names) KILN_FUZZ_CHECK(n.find('\n') == std::string::npos);
}
