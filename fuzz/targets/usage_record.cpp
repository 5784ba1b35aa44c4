// Usage records (kiln-player --record-usage, kiln usage merge, kiln cook --usage): what decodes
// encodes to text that decodes to the same record.
#include "fuzz_target.h"
#include "kiln/usage/usage_record.h"

KILN_FUZZ_TARGET(usage_record) {
  auto record = kiln::usage::decode_usage(kiln::fuzz::as_text(data), "usage.json");
  if (!record) {
    KILN_FUZZ_CHECK_ERROR(record.error(), "usage.json");
    return;
  }
  const std::string encoded = kiln::usage::encode_usage(*record);
  auto again = kiln::usage::decode_usage(encoded, "re-encoded");
  KILN_FUZZ_CHECK(again && *again == *record);
}
