#pragma once
// The writing pass of `import --from` (after transfer/foreign_plan.hpp's reading pass), through
// the services, as a live server's writes go: page threads found or made as a first comment
// makes one (PageService::ImportThread), comment ids from the Redis sequence, each article's
// comments written under its thread's cache mark, several articles a transaction
// (CommentService::ImportBatches), so caches, counts and other instances stay right while it
// runs.
//
// Why it writes each comment once: every comment's row of imported_comments (migration 026:
// the file's system and SHA-256, the comment's place in the file) commits with the comment.
// A run reads which places are written first and writes the rest, so a run cut short is
// finished by running it again, and a finished one writes nothing more.
// Why replies find their comments: the file is read twice more, top-level comments first, so
// a reply's top-level comment is written before it; a reply that answers a comment written
// after it gets its answers_id once all are written.
// Memory: the plan, one id a comment, and the records of one step (20,000 comments or 32 MiB
// of their text).
#include <string>

#include "domain/comments.hpp"
#include "domain/page_threads.hpp"
#include "transfer/foreign_plan.hpp"

namespace plaudit::transfer {

struct ForeignWrite {
  domain::PageService& pages;
  domain::CommentService& comments;
  Source source = Source::kDisqus;
  std::string path;     // the file, read again
  std::string digest;   // its SHA-256 (transfer/dump.hpp Digest)
  bool images = false;  // --comment-images: images in comments shown, else their alt text
  // --users-by-email: a comment whose e-mail address is a user's verified one is that user's.
  bool users_by_email = false;
};

struct WriteCounts {
  int64_t pages = 0;    // page threads of the plan (found or made)
  int64_t written = 0;  // comments written by this run
  int64_t earlier = 0;  // comments an earlier run of the same file wrote
  int64_t altered = 0;  // written other than the file has them (a text cut to fit), logged
};

Awaitable<Result<WriteCounts>> WriteForeign(ForeignWrite w, const ForeignPlan& plan);

}  // namespace plaudit::transfer
