#include "text/mentions.hpp"

#include <cctype>
#include <set>

namespace plaudit::text {
namespace {

bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

constexpr size_t kShortest = 3;
constexpr size_t kLongest = 32;

}  // namespace

std::vector<Mention> FindMentions(std::string_view text) {
  std::vector<Mention> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '@' || (i > 0 && NameChar(text[i - 1]))) {
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && NameChar(text[j])) {
      ++j;
    }
    size_t end = j;
    while (end > i + 1 && text[end - 1] == '.') {
      --end;
    }
    const size_t length = end - i - 1;
    if (length >= kShortest && length <= kLongest) {
      std::string name(text.substr(i + 1, length));
      for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      out.push_back(Mention{i, length + 1, std::move(name)});
    }
    i = j - 1;
  }
  return out;
}

std::vector<std::string> MentionedNames(std::string_view text, size_t limit) {
  std::set<std::string> names;
  for (Mention& m : FindMentions(text)) {
    if (names.size() == limit) {
      break;
    }
    names.insert(std::move(m.name));
  }
  return {names.begin(), names.end()};
}

}  // namespace plaudit::text
