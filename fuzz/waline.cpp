// The Waline reader of `import --from waline` on any bytes (fuzz/foreign_reader.hpp).
#include "foreign_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return plaudit::fuzz::ReadAll(plaudit::transfer::Source::kWaline, data, size);
}
