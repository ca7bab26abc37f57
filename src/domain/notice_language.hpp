#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace plaudit::domain {

// "en" or "zh-CN" from a language tag ("zh", "zh-Hans-CN", "en-GB"…); nullopt for others.
std::optional<std::string> NoticeLanguage(std::string_view tag);

}  // namespace plaudit::domain
