// domain::LiveKindOf: what a comment write tells the thread's live readers, and, above all,
// that a comment they never saw is never named to them (not even by its id).
#include <gtest/gtest.h>

#include "domain/live_feed.hpp"

namespace plaudit::domain {
namespace {

using model::Comment;
using model::CommentStatus;

Comment C(CommentStatus status, int64_t ver, bool deleted = false, int64_t replies = 0) {
  Comment c;
  c.id = 7;
  c.article_id = 1;
  c.status = status;
  c.ver = ver;
  c.deleted = deleted;
  c.reply_count = replies;
  return c;
}

TEST(LiveKindOf, NewCommentsAreToldOnlyWhenShown) {
  EXPECT_EQ(LiveKindOf(std::nullopt, C(CommentStatus::kApproved, 1)), LiveKind::kShown);
  EXPECT_EQ(LiveKindOf(std::nullopt, C(CommentStatus::kPending, 1)), std::nullopt);
  EXPECT_EQ(LiveKindOf(std::nullopt, C(CommentStatus::kSpam, 1)), std::nullopt);
}

TEST(LiveKindOf, ShownCommentsChangeGoAndComeBack) {
  const Comment shown = C(CommentStatus::kApproved, 3);
  EXPECT_EQ(LiveKindOf(shown, C(CommentStatus::kApproved, 4)), LiveKind::kUpdated);  // edit
  EXPECT_EQ(LiveKindOf(shown, C(CommentStatus::kApproved, 4, true)), LiveKind::kGone);
  EXPECT_EQ(LiveKindOf(shown, C(CommentStatus::kSpam, 4)), LiveKind::kGone);
  EXPECT_EQ(LiveKindOf(shown, C(CommentStatus::kPending, 4)), LiveKind::kGone);  // held again
  // Deleted with replies: a placeholder, still listed.
  EXPECT_EQ(LiveKindOf(shown, C(CommentStatus::kApproved, 4, true, 2)), LiveKind::kUpdated);
  EXPECT_EQ(LiveKindOf(C(CommentStatus::kPending, 3), C(CommentStatus::kApproved, 4)),
            LiveKind::kShown);  // approved
}

TEST(LiveKindOf, AHeldCommentsFateIsNobodysBusiness) {
  const Comment held = C(CommentStatus::kPending, 3);
  EXPECT_EQ(LiveKindOf(held, C(CommentStatus::kSpam, 4)), std::nullopt);
  EXPECT_EQ(LiveKindOf(held, C(CommentStatus::kPending, 4, true)), std::nullopt);  // deleted
  EXPECT_EQ(LiveKindOf(held, C(CommentStatus::kPending, 4)), std::nullopt);        // edited
}

TEST(LiveKindOf, AStaleBeforeIsTakenForShown) {
  // Another write came between the read and this one (its version is not the next): the
  // comment may have been shown meanwhile (two moderators at once), so its going is told.
  const Comment read_long_ago = C(CommentStatus::kPending, 3);
  EXPECT_EQ(LiveKindOf(read_long_ago, C(CommentStatus::kSpam, 5)), LiveKind::kGone);
}

}  // namespace
}  // namespace plaudit::domain
