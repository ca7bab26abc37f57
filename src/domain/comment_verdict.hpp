#pragma once
// Whether a new comment is published, held for a moderator, or refused (API.md "Moderation").
//
// One small pure function, so that what decides is in one place, unit tested, and a later
// filter (a Bayesian one, an outside service) plugs in as one more input: the submission, what
// is known of its writer, the thread's policy and the spam rules → a verdict. The facts that
// need Redis or SQL (a duplicate body, an earlier approved comment) are gathered by the caller
// and passed in; nothing here reads a clock or a store.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "domain/comment.hpp"

namespace plaudit::domain {

// --moderation and an article's "moderation": when a comment waits for a moderator.
enum class ModerationPolicy {
  kOff,    // published at once
  kFirst,  // a writer's comments wait until one of theirs has been approved
  kAll,    // every comment waits
};
std::string_view PolicyName(ModerationPolicy p);
std::optional<ModerationPolicy> ParsePolicy(std::string_view name);

// Why a comment was held: stored with it, shown in the queue, written to the moderation log.
inline constexpr std::string_view kHeldByPolicy = "policy";     // --moderation all
inline constexpr std::string_view kHeldFirstComment = "first";  // --moderation first
inline constexpr std::string_view kHeldLinks = "links";         // more than --max-links
inline constexpr std::string_view kHeldSpamWord = "spam_word";  // a word of --spam-words
inline constexpr std::string_view kHeldHoneypot = "honeypot";   // the hidden field was filled
inline constexpr std::string_view kHeldTooFast = "too_fast";    // the form was sent too soon
inline constexpr std::string_view kHeldReports = "reports";     // --report-threshold readers
inline constexpr std::string_view kHeldGuest = "guest";         // --guests moderated

struct SpamRules {
  int64_t max_links = 3;           // more links than this hold a comment (0: any link does)
  std::vector<std::string> words;  // FoldedWords(): case-folded, non-empty
  int64_t min_form_age_ms = 2000;  // a form sent sooner was not filled by a person
};

// What the widget sends beside the body (its spam signals); absent from other clients.
struct Submission {
  std::string_view body;
  std::string_view honeypot;           // the "website" field, which people never see
  std::optional<int64_t> form_age_ms;  // "formAgeMs": since the form was shown
};

// What the caller found out about the writer before judging.
struct WriterFacts {
  bool moderator = false;     // moderators and admins are never held
  bool has_approved = false;  // one of their comments was approved before (policy first)
  bool duplicate = false;     // the same body from them within the duplicate window
  bool guest_held = false;    // a guest under --guests moderated: every comment waits
};

struct Verdict {
  CommentStatus status = CommentStatus::kApproved;
  std::vector<std::string> reasons;  // why it is held (kHeld*), in the order found
  std::optional<Error> refused;      // set: not stored at all
};

Verdict Judge(const Submission& s, const WriterFacts& writer, ModerationPolicy policy,
              const SpamRules& rules);

// An edit of a published comment: only what the new text itself says (links, spam words)
// can hold it; the policy and the form's signals judged the comment when it was posted.
Verdict JudgeEdit(std::string_view body, bool moderator, const SpamRules& rules);

// How many links `body` holds: "http://", "https://" and "www." starts, case-insensitively.
int64_t CountLinks(std::string_view body);
// The spam words of a --spam-words file's text: one a line, trimmed, case-folded; blank lines
// and lines starting with '#' skipped.
std::vector<std::string> FoldedWords(std::string_view file_text);

}  // namespace plaudit::domain
