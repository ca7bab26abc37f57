#pragma once
// The comments table (migrations 005, 019). Every write is one transaction that also keeps the
// parent's reply_count and the article's comment_count exact, and returns the new state of
// every row it changed, so the cache can apply them (versioned) without reading SQL again.
//
// The counts are what readers see (migration 019): reply_count the live approved replies of a
// top-level comment, comment_count the live approved comments whose top-level comment is not
// a live pending one. A write that changes a comment's standing takes the article's row
// first (every comment write does, as does the like flush), then reads the rows it decides
// on, so two writers of one thread decide one after the other on PostgreSQL too.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/comment.hpp"
#include "sql/cache_shards.hpp"
#include "sql/moderation_log.hpp"
#include "sql/notice_types.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct CommentRow {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  std::string author_username;
  std::string author_display_name;
  std::optional<int64_t> reply_to_id;
  std::string reply_to_username;
  std::string reply_to_display_name;
  std::string body;
  std::string html;  // body rendered (migration 024); '' from before it, or once deleted
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  bool deleted = false;
  int64_t reply_count = 0;
  int64_t like_count = 0;
  int64_t ver = 0;
  model::CommentStatus status = model::CommentStatus::kApproved;
};

// The row as the comment it is (`liked` and `replies` are the reader's: left empty).
model::Comment ToComment(const CommentRow& row);
std::vector<model::Comment> ToComments(const std::vector<CommentRow>& rows);

// Insert's kAlreadyExists message for an id SQL holds already (a Redis sequence behind SQL),
// apart from the other conflicts an insert may meet (a guest's name).
inline constexpr std::string_view kCommentIdTaken = "comment id taken";

// What a guest gave (API.md "Guests and sign-in from elsewhere"): the comment's author is then
// the reserved '@guest' account, whatever author_id says.
struct GuestAuthor {
  std::string name;        // shown as the author's display name
  std::string name_key;    // its confusable skeleton: refused when a registered user holds it
  std::string email;       // optional; never served but to admins
  std::string token_hash;  // of the edit token (domain/guest_token.hpp)
  // With notifications on and an e-mail given: the address's row and its one confirmation
  // mail, made in the comment's transaction when the address is new (sql/notices.hpp).
  std::optional<GuestAddress> confirm;
};

// A comment's new text: its body as given and the body rendered (text/markdown.hpp).
struct CommentText {
  std::string body;
  std::string html;
};

struct NewComment {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;  // as given: may name a reply
  std::optional<int64_t> reply_to_user_id;
  int64_t author_id = 0;
  std::string body;
  std::string html;  // body rendered (text/markdown.hpp)
  int64_t now_ms = 0;
  model::CommentStatus status = model::CommentStatus::kApproved;
  std::string held_reasons;  // comma-separated; logged as a hold when status is not approved
  std::optional<GuestAuthor> guest;
};

// A comment of another system's file (`import --from`), placed as transfer/foreign_plan.hpp
// decided, written as a guest's: no address to confirm, no notice, no hold logged.
struct ImportedComment {
  int64_t idx = 0;  // its place among the file's comments
  int64_t id = 0;
  std::optional<int64_t> top;      // its top-level comment; nullopt: it is one
  std::optional<int64_t> answers;  // the comment it answers, when already written
  std::string body;                // its visible text
  std::string html;                // sanitised
  int64_t created_at_ms = 0;
  model::CommentStatus status = model::CommentStatus::kApproved;
  bool deleted = false;  // a placeholder of a deleted comment with replies: no text
  std::string guest_name;
  std::string guest_name_key;  // its skeleton (domain::NormalizeGuest): a user's? then marked
  std::string guest_email;     // "" for none
};

// One article's imported comments, under its cache mark's stamp.
struct ImportedArticle {
  int64_t article_id = 0;
  std::vector<ImportedComment> comments;
  CacheStamp stamp;
};

// Live users by their verified e-mail address (AddressKey), for `import --users-by-email`:
// read once an import, so no transaction looks an address up by a function of a column.
using VerifiedAddresses = std::unordered_map<std::string, int64_t>;
// The key of an address in VerifiedAddresses: ASCII letters lowered, the rest as it is (the
// domain is case-blind, and no backend lowers the rest alike).
std::string AddressKey(std::string_view email);

// What a moderator (or the server, for reports) does to a comment.
enum class ModerationAction {
  kApprove,  // into every list and count; reports cleared
  kSpam,     // out of them (a top-level one with listed replies stays as a placeholder)
  kDelete,   // deleted, its text kept aside for kRestore
  kRestore,  // a moderator's delete or a spam mark undone: live and approved
  kHold,     // back to pending (reports reached the threshold)
};
std::string_view ActionName(ModerationAction a);

// What a write changed: the rows (the written comment first, then its top-level comment when
// that changed too) and the article's new comment count with its version.
struct CommentWrite {
  std::vector<CommentRow> rows;
  int64_t article_comment_count = 0;
  int64_t article_comment_ver = 0;
};

// The moderation queue (GET /api/v1/moderation/comments): what a moderator decides on.
enum class QueueFilter { kPending, kSpam, kReported };

struct QueuedComment {
  CommentRow row;
  std::string held_reasons;  // comma-separated (domain/comment_verdict.hpp)
  int64_t reports = 0;
  std::string article_title;
  std::optional<std::string> page_url;  // a page thread's URL; nullopt for an article
  std::string guest_email;              // a guest's, if they gave one (admins only)
};

class CommentTable {
 public:
  explicit CommentTable(Store& store) : store_(store) {}

  // Which of `names` (lower-cased usernames) name a live account that visibly took part in
  // the article's thread (wrote the article, or a live approved comment there): the ones a
  // `@name` in a new comment marks as a mention. Sorted. (The mention notices reach a wider
  // set, held comments' writers too: a notice tells only its reader, a mark tells everyone.)
  Awaitable<Result<std::vector<std::string>>> Participants(int64_t article_id,
                                                           std::vector<std::string> names);
  // Live comments whose html is empty (written before migration 024), in (after_id, up_to],
  // oldest first: start-up renders them (domain/comment_text_backfill.hpp).
  struct Unrendered {
    int64_t id = 0;
    std::string body;
  };
  static Result<std::vector<Unrendered>> FindUnrendered(Connection& c, int64_t after_id,
                                                        int64_t up_to, int64_t limit);
  // How far an earlier start rendered (`through`: every comment up to it was looked at) and
  // the newest comment id now.
  struct RenderState {
    int64_t through = 0;
    int64_t last_id = 0;
  };
  static Result<RenderState> ReadRenderState(Connection& c);
  static Status SetRenderedThrough(Connection& c, int64_t id);
  // Sets a comment's html while its body is still `text.body` and its html still empty (an
  // edit meanwhile brought its own). The row's version stays: only its missing rendering
  // is added, nothing a cache holds changes meaning.
  static Status SetHtml(Connection& c, int64_t id, const CommentText& text);

  // Whether writes enqueue their notices (notifications configured: --smtp or --webhook).
  void set_notices(bool on) { notices_ = on; }

  // kInvalidArgument for a parent that is not a live comment of the article or an unknown
  // replyTo user; kAlreadyExists when the id is taken (a Redis sequence behind SQL).
  // Each write raises its shard's committed cache seq with `stamp` (sql/cache_shards.hpp).
  // A guest's comment (c.guest) is kAlreadyExists when its name's key is a registered user's.
  Awaitable<Result<CommentWrite>> Insert(NewComment c, CacheStamp stamp = {});
  // Writes imported comments of several articles (their top-level comments written before
  // them), each with its row of imported_comments (migration 026) under `import_key`, in one
  // transaction (one commit, one fsync, for a step of the import): a comment whose row is
  // there already is left as it was. The articles' rows are locked in the order given
  // (ascending ids: the lock order of every write that takes more than one). The counts move
  // as Insert's do. One write an article: the rows written and their top-level comments.
  // `users`: when given, a comment whose guest e-mail address is one of them (AddressKey) is
  // written as that user's.
  Awaitable<Result<std::vector<CommentWrite>>> InsertImported(
      std::string import_key, std::shared_ptr<const VerifiedAddresses> users,
      std::vector<ImportedArticle> batches);
  // Every live user's verified address.
  Awaitable<Result<VerifiedAddresses>> VerifiedUserAddresses();
  // What an import under `import_key` wrote: (idx, comment id) after `after_idx`, by idx, at
  // most `limit`.
  Awaitable<Result<std::vector<std::pair<int64_t, int64_t>>>> ImportedIds(std::string import_key,
                                                                          int64_t after_idx,
                                                                          int64_t limit);
  // Sets answers_id (comment id, answered id) of imported replies written before the comment
  // they answer.
  Awaitable<Status> SetAnswers(std::vector<std::pair<int64_t, int64_t>> answers);
  // Whether a registered user's names hold `name_key` (migration 018).
  Awaitable<Result<bool>> NameKeyHeld(std::string name_key);
  // The hash of a guest comment's edit token; nullopt for no such comment or an account's.
  Awaitable<Result<std::optional<std::string>>> EditTokenHash(int64_t id);
  // kNotFound when there is no live comment with that id. Non-empty `hold_reasons` hold an
  // approved comment for a moderator (out of its indexes and counts, logged) in the same
  // transaction as the new text.
  Awaitable<Result<CommentWrite>> Edit(int64_t id, CommentText text, int64_t now_ms,
                                       std::string hold_reasons = {}, CacheStamp stamp = {});
  // The author's own delete: the text goes, nothing is kept.
  Awaitable<Result<CommentWrite>> Delete(int64_t id, int64_t now_ms, CacheStamp stamp = {});
  // Applies `action` and appends `log` (its action, comment and user set here) in one
  // transaction. kNotFound: no such comment, or a deleted one (but for kRestore);
  // kAlreadyExists ("conflict"): nothing to restore, or the comment is not in a state the
  // action applies to (kHold of one not approved). A write that changes no row is empty.
  Awaitable<Result<CommentWrite>> Moderate(int64_t id, ModerationAction action,
                                           ModerationLogEntry log, CacheStamp stamp = {});
  // Records `user_id`'s report of a live comment (once per reader; again: no change). When
  // the comment is approved and reaches `threshold` reports, it is held (kHold, logged by the
  // server) in the same transaction: the write is returned. nullopt when nothing the cache
  // holds changed. kNotFound for no such live comment.
  Awaitable<Result<std::optional<CommentWrite>>> Report(int64_t id, int64_t user_id,
                                                        std::string reason, int64_t now_ms,
                                                        int64_t threshold, CacheStamp stamp = {});
  // Live comments in the queue `filter`, oldest first: at most `limit` with id > `after_id`,
  // of one article when `article_id` is set.
  Awaitable<Result<std::vector<QueuedComment>>> Queue(QueueFilter filter,
                                                      std::optional<int64_t> article_id,
                                                      int64_t after_id, int64_t limit);
  // Whether `author_id` has a comment that was approved (policy `first`).
  Awaitable<Result<bool>> HasApproved(int64_t author_id);
  Awaitable<Result<std::optional<CommentRow>>> Find(int64_t id);
  Awaitable<Result<std::vector<CommentRow>>> FindMany(std::vector<int64_t> ids);
  // One article's comments with id > after_id, by id, at most `limit` (cache rebuilds).
  Awaitable<Result<std::vector<CommentRow>>> ListForArticle(int64_t article_id, int64_t after_id,
                                                            int64_t limit);
  Awaitable<Result<int64_t>> MaxId();

 private:
  Store& store_;
  bool notices_ = false;
};

}  // namespace plaudit::sql
