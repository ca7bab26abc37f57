#pragma once
// The first of an import's two passes over a file of another system (`import --from`): every
// thread and comment read once, without their texts, into the plan of what becomes what:
//
// - A thread becomes the page thread of its URL, normalised as API.md "Embedding on other
//   sites" says (a path from Waline or Twikoo joined to --site first; --site also moves an
//   absolute URL to that origin). Threads of one URL (Disqus keeps http and https, or an old
//   identifier, apart) are one page. A URL that is not a page of --sites: its comments are
//   skipped.
// - A comment keeps its status (approved, pending, spam). Plaudit has two levels: a reply is
//   placed under its top-level ancestor, answering its direct parent (answers_id).
// - A deleted comment becomes a deleted placeholder when it is a top-level comment with
//   replies that are imported, and is left out otherwise (its replies answer nobody).
// - Skipped, each reported with its line: a comment whose thread or parent is not in the
//   file (and so its replies), whose thread is deleted or not a page, whose time cannot be
//   read, or with an id seen before.
// Refused as a whole (nothing written): a file that is not of the format, not well-formed, or
// cut short; the first pass reads it all before the second writes anything.
//
// Memory: the comments' ids, parents and threads (no texts), about 270 bytes a comment.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "transfer/foreign.hpp"

namespace plaudit::transfer {

struct PlanOptions {
  std::string site;                // --site: "https://blog.example", or ""
  std::vector<std::string> sites;  // --sites (normalised origins)
};

struct PlannedPage {
  std::string url;  // normalised
  std::string title;
  std::optional<int64_t> created_ms;
  int64_t comments = 0;  // to import
};

// One comment's fate.
struct PlannedComment {
  int32_t page = -1;     // PlannedPage index; -1: skipped
  int32_t top = -1;      // the top-level ancestor's index (itself for a top-level one)
  int32_t answers = -1;  // the direct parent's index when it is imported, else -1
  ForeignStatus status = ForeignStatus::kApproved;
  bool deleted = false;  // imported as a deleted placeholder
};

struct Problem {
  int64_t line = 0;
  std::string message;
};

struct PlanCounts {
  int64_t threads = 0;                                            // thread records read
  int64_t comments = 0;                                           // comment records read
  int64_t approved = 0, pending = 0, spam = 0, placeholders = 0;  // to import
  int64_t deleted_left_out = 0;
  int64_t skipped = 0;
};

class ForeignPlan : public ForeignSink {
 public:
  explicit ForeignPlan(PlanOptions options) : options_(std::move(options)) {}

  Status Thread(ForeignThread thread) override;
  Status Comment(ForeignComment comment) override;
  // After the pass: parents and threads resolved, fates decided.
  void Resolve();

  const std::vector<PlannedPage>& pages() const { return pages_; }
  const PlanCounts& counts() const { return counts_; }
  const std::vector<Problem>& problems() const { return problems_; }
  // Comment `index` in the file's order of comments (the second pass's ForeignComment order).
  const PlannedComment& comment(size_t index) const { return planned_[index]; }
  size_t size() const { return planned_.size(); }

 private:
  struct Read {
    std::string id;
    std::string thread;
    std::string parent;
    int64_t line = 0;
    ForeignStatus status = ForeignStatus::kApproved;
    bool deleted = false;
    bool timed = true;
    bool duplicate = false;
    std::string skip;  // the reader's reason to skip it
  };
  int32_t PageOf(const std::string& url, int64_t line, std::string* why);
  void Skip(size_t i, const std::string& why);

  PlanOptions options_;
  std::unordered_map<std::string, int32_t> threads_;  // thread key → page (-1: not a page)
  std::unordered_map<std::string, int32_t> page_of_url_;
  std::unordered_map<std::string, std::string> thread_problem_;  // why a thread is no page
  std::vector<PlannedPage> pages_;
  std::vector<std::string> first_url_;  // page → the URL of the first thread that made it
  std::vector<Read> read_;
  std::vector<PlannedComment> planned_;
  std::vector<Problem> problems_;
  PlanCounts counts_;
};

// The plan as a reader reads it: what was read, what is (would be) imported, what is left
// out and why, and the first `max_problems` problems with their lines.
std::string DescribePlan(const ForeignPlan& plan, bool dry_run, size_t max_problems);

}  // namespace plaudit::transfer
