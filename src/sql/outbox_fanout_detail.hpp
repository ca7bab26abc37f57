#pragma once
// Private to the fan-out files (src/sql/outbox_fanout*.cpp): what OutboxTable::FanOut
// (outbox_fanout.cpp) shares with the two parts it calls:
//   outbox_fanout_readers.cpp  the readers a live approved comment tells, each once;
//   outbox_fanout_mail.cpp     a notice put into a reader's mail, joining the one that waits.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/outbox.hpp"

namespace plaudit::sql::detail {

inline constexpr std::string_view kEnqueue =
    "INSERT INTO outbox (event_id, channel, recipient, kind, payload, created_at, due_at, batch) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
    "ON CONFLICT (event_id, channel, recipient) DO NOTHING";

struct CommentFacts {
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  std::optional<int64_t> reply_to;
  std::string guest_name;
  std::string guest_email;
  std::string status;
  bool deleted = false;
  std::string body;
  int64_t created_at = 0;
  int64_t article_author = 0;
  std::string article_kind;
  std::string article_title;
  std::string author_display;
  std::string page_url;
  bool hidden_by_top = false;      // a reply under a live pending top-level comment: unseen
  std::optional<int64_t> answers;  // the comment it answers, as its writer named it
};

struct Told {
  std::string recipient;  // "u:<id>" or "g:<id>"
  std::string kind;       // reply, mention, article_comment, held
};

// The readers comment `comment` (its facts `f`) tells, each once ever (notice_keys); `answers`
// is the comment it answers as the event names it.
Result<std::vector<Told>> Readers(Connection& tx, int64_t comment, const CommentFacts& f,
                                  std::optional<int64_t> answers, int64_t now_ms);

// Adds notice `t` about `comment` (of article `thread`; none: a held comment) to its reader's
// mail; `event_id` names the event it comes from.
Status AddMail(Connection& tx, const std::string& event_id, const Told& t, int64_t comment,
               std::optional<int64_t> thread, const FanOutPlan& plan, int64_t now_ms);

}  // namespace plaudit::sql::detail
