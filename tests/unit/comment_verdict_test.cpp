// The one function that decides whether a new comment is published, held or refused
// (domain/comment_verdict.hpp).
#include "domain/comment_verdict.hpp"

#include <gtest/gtest.h>

#include "common/time.hpp"

namespace plaudit::domain {
namespace {

std::vector<std::string> Reasons(const Verdict& v) { return v.reasons; }

TEST(CommentVerdict, APlainCommentIsApprovedUnderEveryPolicyButItsOwn) {
  const SpamRules rules;
  const Submission s{"a fine comment", "", std::nullopt};
  WriterFacts writer;
  EXPECT_EQ(Judge(s, writer, ModerationPolicy::kOff, rules).status, CommentStatus::kApproved);
  auto all = Judge(s, writer, ModerationPolicy::kAll, rules);
  EXPECT_EQ(all.status, CommentStatus::kPending);
  EXPECT_EQ(Reasons(all), std::vector<std::string>{"policy"});
  auto first = Judge(s, writer, ModerationPolicy::kFirst, rules);
  EXPECT_EQ(first.status, CommentStatus::kPending);
  EXPECT_EQ(Reasons(first), std::vector<std::string>{"first"});
  writer.has_approved = true;
  EXPECT_EQ(Judge(s, writer, ModerationPolicy::kFirst, rules).status, CommentStatus::kApproved);
  EXPECT_EQ(Judge(s, writer, ModerationPolicy::kAll, rules).status, CommentStatus::kPending);
}

TEST(CommentVerdict, EachSpamSignalHoldsWithItsReasonInOrder) {
  SpamRules rules;
  rules.max_links = 1;
  rules.words = FoldedWords("# a comment line\n\n  Casino \n免费\n");
  ASSERT_EQ(rules.words, (std::vector<std::string>{"casino", "免费"}));
  const WriterFacts writer;
  auto v = Judge({"https://a.example www.b.example ＣＡＳＩＮＯ", "http://x", 900}, writer,
                 ModerationPolicy::kOff, rules);
  EXPECT_EQ(v.status, CommentStatus::kPending);
  EXPECT_EQ(Reasons(v), (std::vector<std::string>{"honeypot", "too_fast", "links", "spam_word"}));
  EXPECT_FALSE(v.refused);
  EXPECT_EQ(
      Reasons(Judge({"点击免费领取", "", std::nullopt}, writer, ModerationPolicy::kOff, rules)),
      std::vector<std::string>{"spam_word"});
  // At the limits: one link, a form open exactly 2 s.
  EXPECT_EQ(
      Judge({"see https://a.example", "", 2000}, writer, ModerationPolicy::kOff, rules).status,
      CommentStatus::kApproved);
}

TEST(CommentVerdict, ModeratorsAreNeverHeldAndADuplicateIsRefusedForAll) {
  const SpamRules rules;
  WriterFacts mod;
  mod.moderator = true;
  EXPECT_EQ(Judge({"x http://1 http://2 http://3 http://4", "filled", 1}, mod,
                  ModerationPolicy::kAll, rules)
                .status,
            CommentStatus::kApproved);
  mod.duplicate = true;
  auto v = Judge({"again", "", std::nullopt}, mod, ModerationPolicy::kOff, rules);
  ASSERT_TRUE(v.refused);
  EXPECT_EQ(v.refused->code, ErrorCode::kDuplicate);
}

TEST(CommentVerdict, LinksAreCountedOncePerLinkWhateverTheirCase) {
  EXPECT_EQ(CountLinks(""), 0);
  EXPECT_EQ(CountLinks("no links, www nor http"), 0);
  EXPECT_EQ(CountLinks("https://www.a.example"), 1);
  EXPECT_EQ(CountLinks("HTTP://A.EXAMPLE and Www.b.example and https://c"), 3);
  EXPECT_EQ(CountLinks("http://"), 1);
}

TEST(CommentVerdict, AnEditIsJudgedByItsTextAloneAndNeverForModerators) {
  SpamRules rules;
  rules.max_links = 1;
  rules.words = FoldedWords("casino\n");
  EXPECT_EQ(JudgeEdit("a fixed typo", false, rules).status, CommentStatus::kApproved);
  auto links = JudgeEdit("http://a.example www.b.example", false, rules);
  EXPECT_EQ(links.status, CommentStatus::kPending);
  EXPECT_EQ(Reasons(links), std::vector<std::string>{"links"});
  auto both = JudgeEdit("CASINO http://a.example https://b.example", false, rules);
  EXPECT_EQ(Reasons(both), (std::vector<std::string>{"links", "spam_word"}));
  EXPECT_EQ(JudgeEdit("CASINO http://a.example https://b.example", true, rules).status,
            CommentStatus::kApproved);
}

TEST(CommentVerdict, PoliciesReadBackByName) {
  for (auto p : {ModerationPolicy::kOff, ModerationPolicy::kFirst, ModerationPolicy::kAll}) {
    EXPECT_EQ(ParsePolicy(PolicyName(p)), p);
  }
  EXPECT_FALSE(ParsePolicy("sometimes"));
}

TEST(TimeText, ParsesWhatItFormatsAndNothingElse) {
  for (int64_t ms : {int64_t{0}, int64_t{1796467345488}, int64_t{253402300799999}}) {
    EXPECT_EQ(ParseTimeMs(FormatTimeMs(ms)), ms) << FormatTimeMs(ms);
  }
  EXPECT_EQ(ParseTimeMs("2026-12-05T10:00:00Z"), 1796464800000);
  EXPECT_EQ(ParseTimeMs("2026-12-05T10:00:00.5Z"), 1796464800500);
  EXPECT_EQ(ParseTimeMs("2026-12-05T12:00:00+02:00"), 1796464800000);
  EXPECT_EQ(ParseTimeMs("2026-12-05T09:30:00.250-00:30"), 1796464800250);
  for (const char* bad :
       {"", "2026-12-05", "2026-12-05T10:00:00", "2026-02-30T10:00:00Z", "2026-12-05T24:00:00Z",
        "2026-12-05T10:00:00+0100", "2026-12-05T10:00:00+24:00", "2026-12-05T10:00:00.Z",
        "x026-12-05T10:00:00Z"}) {
    EXPECT_FALSE(ParseTimeMs(bad)) << bad;
  }
}

}  // namespace
}  // namespace plaudit::domain
