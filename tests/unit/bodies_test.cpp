// The write routes' body decoders (api/bodies.hpp) on the cases a client meets; fuzz/bodies.cpp
// checks their promises on everything else.
#include "api/bodies.hpp"

#include <gtest/gtest.h>

namespace plaudit::api::bodies {
namespace {

boost::json::object Body(std::string_view json) { return boost::json::parse(json).as_object(); }

TEST(Bodies, APageCommentsTitleIsTheThreadsAndNotTheComments) {
  auto in = NewPageComment(Body(R"({"title": "A page", "body": "hi", "parentId": 4})"));
  ASSERT_TRUE(in) << in.error().message;
  EXPECT_EQ(in->title, "A page");
  EXPECT_EQ(in->comment.body, "hi");
  EXPECT_EQ(in->comment.parent_id, 4);
  EXPECT_FALSE(NewPageComment(Body(R"({"title": "A page", "body": "hi", "author": 1})")));
  auto untitled = NewPageComment(Body(R"({"body": "hi"})"));
  ASSERT_TRUE(untitled);
  EXPECT_FALSE(untitled->title);
}

TEST(Bodies, AGuestObjectIsTakenOutOfTheBody) {
  auto body = Body(R"({"body": "hi", "guest": {"name": "Ann", "email": "a@b.c"}})");
  auto guest = Guest(body);
  ASSERT_TRUE(guest && *guest);
  EXPECT_EQ((*guest)->name, "Ann");
  EXPECT_EQ((*guest)->email, "a@b.c");
  EXPECT_FALSE(body.contains("guest"));
  EXPECT_TRUE(NewComment(body));
  auto odd = Body(R"({"body": "hi", "guest": {"name": "Ann", "id": 3}})");
  EXPECT_FALSE(Guest(odd));
  auto none = Body(R"({"body": "hi"})");
  auto absent = Guest(none);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);
}

TEST(Bodies, AnEmailAbsentChangesNothingWhileNullClearsIt) {
  auto absent = Email(Body("{}"));
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->given);
  auto cleared = Email(Body(R"({"email": null})"));
  ASSERT_TRUE(cleared);
  EXPECT_TRUE(cleared->given);
  EXPECT_EQ(cleared->email, "");
  EXPECT_EQ(Email(Body(R"({"email": "a@b.c"})"))->email, "a@b.c");
  EXPECT_FALSE(Email(Body(R"({"email": 5})")));
  EXPECT_FALSE(Email(Body(R"({"displayName": "x"})")));
}

TEST(Bodies, ABanEndsAfterNowAndItsReasonHasNoControlCharacters) {
  constexpr int64_t kNow = 1'800'000'000'000;  // 2027-01-15
  auto forever = Ban(Body("{}"), kNow);
  ASSERT_TRUE(forever);
  EXPECT_EQ(forever->until, domain::kBannedForever);
  auto until = Ban(Body(R"({"until": "2030-01-01T00:00:00Z", "reason": "spam"})"), kNow);
  ASSERT_TRUE(until);
  EXPECT_GT(until->until, kNow);
  EXPECT_EQ(until->reason, "spam");
  EXPECT_FALSE(Ban(Body(R"({"until": "2020-01-01T00:00:00Z"})"), kNow));
  EXPECT_FALSE(Ban(Body(R"({"until": "soon"})"), kNow));
  EXPECT_FALSE(Ban(Body(R"({"reason": "a\u0000b"})"), kNow));
  EXPECT_FALSE(Ban(Body(R"({"reason": ")" + std::string(501, 'x') + R"("})"), kNow));
  EXPECT_FALSE(ReportReason(Body(R"({"reason": "line\nbreak"})")));
  EXPECT_EQ(*ReportReason(Body("{}")), "");
}

TEST(Bodies, ModerationTakesOneToAHundredPositiveIdsAndAKnownAction) {
  auto ok = Moderation(Body(R"({"ids": [3, 1], "action": "restore"})"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->ids, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(ok->action, sql::ModerationAction::kRestore);
  EXPECT_FALSE(Moderation(Body(R"({"ids": [], "action": "spam"})")));
  EXPECT_FALSE(Moderation(Body(R"({"ids": [0], "action": "spam"})")));
  EXPECT_FALSE(Moderation(Body(R"({"ids": [1], "action": "burn"})")));
  EXPECT_FALSE(Moderation(Body(R"({"ids": [1], "action": "spam", "note": "x"})")));
  std::string many = R"({"action": "spam", "ids": [1)";
  for (int i = 2; i <= 101; ++i) {
    many += "," + std::to_string(i);
  }
  EXPECT_FALSE(Moderation(Body(many + "]}")));
}

TEST(Bodies, AnArticleKindIsArticleOrPostAndOnlyOnCreate) {
  EXPECT_TRUE(Article(Body(R"({"title": "t", "kind": "post"})"), true));
  EXPECT_FALSE(Article(Body(R"({"title": "t", "kind": "page"})"), true));
  EXPECT_FALSE(Article(Body(R"({"kind": "post"})"), false));
  EXPECT_FALSE(Article(Body(R"({"moderation": "sometimes"})"), false));
  auto back = Article(Body(R"({"moderation": null})"), false);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->moderation, "");
  EXPECT_FALSE(Article(Body(R"({"authorId": 2})"), true));
}

TEST(Bodies, SettingsNameAKnownLanguage) {
  auto zh = NoticeSettings(Body(R"({"language": "zh-Hans-CN", "replies": false})"));
  ASSERT_TRUE(zh);
  EXPECT_EQ(zh->language, "zh-CN");
  EXPECT_EQ(zh->replies, false);
  EXPECT_FALSE(zh->moderation);
  EXPECT_FALSE(NoticeSettings(Body(R"({"language": "fr"})")));
}

}  // namespace
}  // namespace plaudit::api::bodies
