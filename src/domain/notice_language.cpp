// The languages notices are written in (apart from the settings service, so the body
// decoders link without it).
#include "domain/notice_language.hpp"

#include <cctype>

namespace plaudit::domain {

std::optional<std::string> NoticeLanguage(std::string_view tag) {
  std::string t;
  for (char c : tag) {
    t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (t == "en" || t.rfind("en-", 0) == 0) {
    return "en";
  }
  if (t == "zh" || t.rfind("zh-", 0) == 0) {
    return "zh-CN";
  }
  return std::nullopt;
}

}  // namespace plaudit::domain
