#include "domain/comment_verdict.hpp"

#include <array>

#include "text/unicode.hpp"

namespace plaudit::domain {
namespace {

constexpr std::array<std::string_view, 3> kPolicyNames = {"off", "first", "all"};

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether `text` at `at` starts with ASCII `lower`, ignoring case.
bool StartsAt(std::string_view text, size_t at, std::string_view lower) {
  if (text.size() - at < lower.size()) {
    return false;
  }
  for (size_t i = 0; i < lower.size(); ++i) {
    if (Lower(text[at + i]) != lower[i]) {
      return false;
    }
  }
  return true;
}

// The signals in the text itself: too many links, a spam word.
void AddContentReasons(std::string_view text, const SpamRules& rules,
                       std::vector<std::string>& reasons) {
  if (CountLinks(text) > rules.max_links) {
    reasons.emplace_back(kHeldLinks);
  }
  if (rules.words.empty()) {
    return;
  }
  // Substrings of the folded body: spam words are often glued to other text, and Chinese
  // has no spaces to split on.
  auto folded = text::FoldCase(text);
  const std::string_view body = folded ? std::string_view(*folded) : text;
  for (const auto& w : rules.words) {
    if (body.find(w) != std::string_view::npos) {
      reasons.emplace_back(kHeldSpamWord);
      return;
    }
  }
}

}  // namespace

std::string_view PolicyName(ModerationPolicy p) { return kPolicyNames.at(static_cast<size_t>(p)); }

std::optional<ModerationPolicy> ParsePolicy(std::string_view name) {
  for (size_t i = 0; i < kPolicyNames.size(); ++i) {
    if (kPolicyNames[i] == name) {
      return static_cast<ModerationPolicy>(i);
    }
  }
  return std::nullopt;
}

int64_t CountLinks(std::string_view body) {
  int64_t n = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    // "https://www.x" is one link: a "www." right after a scheme is the same one.
    if (StartsAt(body, i, "http://") || StartsAt(body, i, "https://")) {
      ++n;
      i = body.find("//", i) + 1;
      if (StartsAt(body, i + 1, "www.")) {
        i += 4;
      }
    } else if (StartsAt(body, i, "www.")) {
      ++n;
      i += 3;
    }
  }
  return n;
}

std::vector<std::string> FoldedWords(std::string_view file_text) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start <= file_text.size()) {
    size_t end = file_text.find('\n', start);
    if (end == std::string_view::npos) {
      end = file_text.size();
    }
    std::string_view line = file_text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.front() != '#') {
      if (auto folded = text::FoldCase(line); folded && !folded->empty()) {
        words.push_back(std::move(*folded));
      }
    }
    start = end + 1;
  }
  return words;
}

Verdict Judge(const Submission& s, const WriterFacts& writer, ModerationPolicy policy,
              const SpamRules& rules) {
  Verdict v;
  if (writer.duplicate) {
    v.refused = Error{ErrorCode::kDuplicate, "you posted the same comment a moment ago", 0};
    return v;
  }
  if (writer.moderator) {
    return v;
  }
  if (!s.honeypot.empty()) {
    v.reasons.emplace_back(kHeldHoneypot);
  }
  if (s.form_age_ms && *s.form_age_ms < rules.min_form_age_ms) {
    v.reasons.emplace_back(kHeldTooFast);
  }
  AddContentReasons(s.body, rules, v.reasons);
  if (writer.guest_held) {
    v.reasons.emplace_back(kHeldGuest);
  }
  if (policy == ModerationPolicy::kAll) {
    v.reasons.emplace_back(kHeldByPolicy);
  } else if (policy == ModerationPolicy::kFirst && !writer.has_approved) {
    v.reasons.emplace_back(kHeldFirstComment);
  }
  if (!v.reasons.empty()) {
    v.status = CommentStatus::kPending;
  }
  return v;
}

Verdict JudgeEdit(std::string_view body, bool moderator, const SpamRules& rules) {
  Verdict v;
  if (moderator) {
    return v;
  }
  AddContentReasons(body, rules, v.reasons);
  if (!v.reasons.empty()) {
    v.status = CommentStatus::kPending;
  }
  return v;
}

}  // namespace plaudit::domain
