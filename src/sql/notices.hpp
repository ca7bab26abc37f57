#pragma once
// Who gets notices and how they want them (migration 023, API.md "Notifications"): users'
// addresses and settings, guests' confirmed addresses, the confirmation and unsubscribe
// links' secrets, and what a mail about some comments needs to say. The outbox itself is
// sql/outbox.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sql/notice_types.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct NotifySettings {
  std::string email;  // "" when none
  bool verified = false;
  bool replies = true;
  bool article_comments = true;
  bool moderation = true;
  std::string language = "en";
};

// A new address for a user: the link's token (mailed) and its hash (kept).
struct NewAddress {
  std::string email;  // "" removes the address (and sends nothing)
  std::string token;
  std::string token_hash;
  std::string unsubscribe_key;  // used when the user has none yet
};

struct SettingsChange {
  std::optional<bool> replies;
  std::optional<bool> article_comments;
  std::optional<bool> moderation;
  std::optional<std::string> language;
};

// Where a mail goes ("u:<id>" or "g:<id>" in the outbox).
struct MailRecipient {
  std::string email;
  bool verified = false;  // only confirmation mails go to an address that is not
  bool wants_replies = true;
  bool wants_article_comments = true;
  bool wants_moderation = true;
  std::string name;  // how to greet them ("" for a guest)
  std::string language = "en";
  std::string unsubscribe_key;
  bool moderator = false;  // a moderator or admin now (held comments go only to them)
};

// A comment as a notice shows it.
struct MailComment {
  int64_t id = 0;
  int64_t article_id = 0;
  std::string article_title;
  std::string article_kind;
  std::string page_url;  // a page thread's
  std::string author;    // display name
  std::string body;
  std::string status;
  bool deleted = false;
  bool hidden_by_top = false;  // a reply under a live pending top-level comment: unseen
};

class NoticeBook {
 public:
  explicit NoticeBook(Store& store) : store_(store) {}

  // In a guest comment's transaction: the address's row, and its one confirmation mail, when
  // the address is new. An address is mailed a confirmation once, ever: a stranger typing
  // someone's address under comments cannot make Plaudit mail them again and again.
  static Status NoteGuestAddress(Connection& tx, const GuestAddress& a, int64_t now_ms);

  // nullopt for no such (live) user.
  Awaitable<Result<std::optional<NotifySettings>>> Settings(int64_t user_id);
  // Sets (or clears) the address, unverified, and queues the verification mail in the same
  // transaction. kRateLimited when one was queued less than `min_gap_ms` ago; the same
  // address again changes nothing (no mail). False for no such user.
  Awaitable<Result<bool>> SetEmail(int64_t user_id, NewAddress a, int64_t now_ms,
                                   int64_t min_gap_ms);
  Awaitable<Result<bool>> ChangeSettings(int64_t user_id, SettingsChange c);
  // Confirms the address whose link token has hash `token_hash`: a user's (only `user_id`'s
  // when given) or, without `user_id`, a guest's too. False when no address waits for it.
  Awaitable<Result<bool>> Confirm(std::string token_hash, std::optional<int64_t> user_id,
                                  int64_t now_ms);
  // The one-click link: the user of `key` hears of nothing more (every setting off), or the
  // guest address of `key` is unsubscribed. False for an unknown key.
  Awaitable<Result<bool>> Unsubscribe(std::string key, int64_t now_ms);

  // For the sender: nullopt when the recipient is gone (a deleted user).
  Awaitable<Result<std::optional<MailRecipient>>> Recipient(std::string recipient);
  Awaitable<Result<std::vector<MailComment>>> Comments(std::vector<int64_t> ids);
  // A reader notice dropped at send time (its comment no longer shown): its one-per-comment
  // key goes, so the comment's approval later tells the reader after all.
  Awaitable<Result<bool>> ForgetNotices(std::string recipient, std::vector<int64_t> comment_ids);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
