#include "transfer/records.hpp"

#include <array>

namespace plaudit::transfer {
namespace {

constexpr Column Int(std::string_view name) { return {name, Kind::kInt, false, false}; }
constexpr Column OptInt(std::string_view name) { return {name, Kind::kInt, true, false}; }
constexpr Column Text(std::string_view name) { return {name, Kind::kText, false, false}; }
constexpr Column OptText(std::string_view name) { return {name, Kind::kText, true, false}; }
constexpr Column Secret(Column c) {
  c.secret = true;
  return c;
}

// users: username_key is the username lower-cased (derived on import). The reserved accounts
// ('@pages', '@guest') are carried like the others: their ids are what the rows refer to.
constexpr std::array kUser{
    Int("id"),
    Text("username"),
    Text("display_name"),
    Text("role"),
    Int("created_at"),
    Int("updated_at"),
    OptInt("deleted_at"),
    Int("names_keyed"),
    OptInt("banned_until"),
    Text("ban_reason"),
    OptText("email"),
    OptInt("email_verified_at"),
    Int("notify_replies"),
    Int("notify_article_comments"),
    Int("notify_moderation"),
    Text("notify_language"),
    Secret(Text("password_hash")),
    Secret(OptText("email_token_hash")),
    Secret(OptInt("email_token_at")),
    Secret(OptText("unsubscribe_key")),
};
constexpr std::array kNameKey{Text("name_key"), Int("user_id")};
constexpr std::array kIdentity{Text("provider"), Text("subject"),   Int("user_id"),
                               OptText("email"), Int("created_at"), Int("updated_at")};
// articles: like_count is counted again from the like rows; like_seq, comment_ver, cache_seq
// and thread_seq are the caches' and start again.
constexpr std::array kArticle{
    Int("id"),
    Text("kind"),
    Int("author_id"),
    Text("title"),
    Text("summary"),
    Text("content"),
    Text("status"),
    Int("pinned"),
    Int("allow_comments"),
    Int("created_at"),
    Int("updated_at"),
    OptInt("published_at"),
    Int("view_count"),
    Int("comment_count"),
    Int("ver"),
    OptText("moderation"),
};
constexpr std::array kPage{Text("url"), Int("article_id"), Int("created_at")};
// comments: like_count as articles'; like_seq starts again.
constexpr std::array kComment{
    Int("id"),
    Int("article_id"),
    OptInt("parent_id"),
    Int("author_id"),
    OptInt("reply_to_user_id"),
    OptInt("answers_id"),
    Text("body"),
    Text("html"),
    Int("created_at"),
    Int("updated_at"),
    Int("deleted"),
    Int("reply_count"),
    Int("ver"),
    Text("status"),
    Text("held_reasons"),
    Int("reports"),
    OptText("removed_body"),
    OptText("removed_html"),
    OptText("guest_name"),
    OptText("guest_email"),
    Secret(OptText("edit_token_hash")),
};
// likes: the valid rows only (an undone like's row is the write-behind's bookkeeping).
constexpr std::array kLike{Text("target_type"), Int("target_id"), Int("user_id"),
                           Int("updated_at")};
constexpr std::array kReport{Int("comment_id"), Int("user_id"), Text("reason"), Int("at")};
constexpr std::array kModeration{
    Int("id"),         Int("at"),     OptInt("actor_id"), Text("action"), OptInt("comment_id"),
    OptInt("user_id"), Text("reason")};
constexpr std::array kGuestAddress{
    Int("id"),
    Text("email"),
    OptInt("verified_at"),
    OptInt("unsubscribed_at"),
    Text("language"),
    Int("created_at"),
    Secret(OptText("token_hash")),
    Secret(Text("unsubscribe_key")),
};
constexpr std::array kNoticeKey{Text("key"), Int("created_at")};
// The outbox's rows still to deliver (a delivered or given-up row is history); leases are the
// old instances' and are not carried.
constexpr std::array kNotice{
    Int("id"),       Text("event_id"), Text("channel"),       Text("recipient"),
    Text("kind"),    Text("payload"),  Int("created_at"),     Int("due_at"),
    Int("attempts"), OptText("batch"), OptText("last_error"),
};
constexpr std::array kChange{Int("id"), Int("article_id"), Text("op"), Int("at")};
constexpr std::array kIdMark{Text("name"), Int("last")};
// plaudit_meta: the facts about the data (the first admin's claim, how far comments were
// rendered), not the search index's cursor nor an import's own mark.
constexpr std::array kMeta{Text("key"), Text("value")};

constexpr std::array<std::string_view, 1> kById{"id"};
constexpr std::array<std::string_view, 1> kByNameKey{"name_key"};
constexpr std::array<std::string_view, 2> kByIdentity{"provider", "subject"};
constexpr std::array<std::string_view, 1> kByUrl{"url"};
constexpr std::array<std::string_view, 3> kByLike{"target_type", "target_id", "user_id"};
constexpr std::array<std::string_view, 2> kByReport{"comment_id", "user_id"};
constexpr std::array<std::string_view, 1> kByKey{"key"};
constexpr std::array<std::string_view, 1> kByName{"name"};

const std::array<RecordType, 15> kTypes{{
    {"user", "users", kUser, kById, "", "", true, false},
    {"name_key", "user_name_keys", kNameKey, kByNameKey, "", "", false, false},
    {"identity", "user_identities", kIdentity, kByIdentity, "", "", false, false},
    {"article", "articles", kArticle, kById, "", "", false, false},
    {"page", "pages", kPage, kByUrl, "", "", false, false},
    {"comment", "comments", kComment, kById, "", "", false, false},
    {"like", "likes", kLike, kByLike, "valid = 1", "", false, false},
    {"report", "comment_reports", kReport, kByReport, "", "", false, false},
    {"moderation", "moderation_log", kModeration, kById, "", "", true, false},
    {"guest_address", "guest_addresses", kGuestAddress, kById, "", "", true, false},
    {"notice_key", "notice_keys", kNoticeKey, kByKey, "", "", false, false},
    // A verify or confirm mail's payload holds its link's token in the clear.
    {"notice", "outbox", kNotice, kById, "delivered_at IS NULL AND failed_at IS NULL",
     "kind NOT IN ('verify', 'confirm')", true, false},
    {"change", "article_changes", kChange, kById, "", "", false, false},
    {"id_mark", "id_marks", kIdMark, kByName, "", "", false, true},
    {"meta", "plaudit_meta", kMeta, kByKey, "\"key\" IN ('first_admin', 'comment_html_through')",
     "", false, true},
}};

}  // namespace

std::span<const RecordType> RecordTypes() { return kTypes; }

const RecordType* FindRecordType(std::string_view type) {
  for (const RecordType& t : kTypes) {
    if (t.type == type) {
      return &t;
    }
  }
  return nullptr;
}

}  // namespace plaudit::transfer
