#include "transfer/foreign_plan.hpp"

#include <algorithm>

#include "common/web_origin.hpp"

namespace plaudit::transfer {
namespace {

constexpr size_t kMaxProblems = 10'000;  // kept for the report; the rest are only counted
constexpr int64_t kLastTimeMs = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z

std::string Line(int64_t line) { return "line " + std::to_string(line); }

}  // namespace

namespace {

// A path as Waline keeps it (decoded: "/a b/你好") made a URL's: what a URL cannot hold
// percent-encoded (non-ASCII is the IRI mapping's, in NormalisePageUrl).
std::string EncodedPath(std::string_view path) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7F ||
        std::string_view("\"<>\\^`{|}[]").find(ch) != std::string_view::npos) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

int32_t ForeignPlan::PageOf(const std::string& url, int64_t line, std::string* why) {
  std::string text = url;
  if (text.empty()) {
    *why = "has no URL";
    return -1;
  }
  const auto scheme = text.find("://");
  const bool absolute = scheme != std::string::npos && text.find('/') > scheme;
  if (!absolute) {
    // A path (Waline's and Twikoo's pages), or what a site set as one ("post-1"): its page is
    // that path on --site.
    if (options_.site.empty()) {
      *why = "is a path (" + QuotedText(url) + "): give --site";
      return -1;
    }
    text = options_.site + (text.front() == '/' ? "" : "/") + EncodedPath(text);
  } else if (!options_.site.empty()) {
    // --site moves every page to that origin: the path (and what follows) stays.
    const auto path = text.find('/', scheme + 3);
    text = options_.site + (path == std::string::npos ? "/" : text.substr(path));
  }
  auto page = NormalisePageUrl(text);
  if (!page) {
    *why = "has a URL that is not a page's (" + QuotedText(url) + ")";
    return -1;
  }
  if (std::find(options_.sites.begin(), options_.sites.end(), page->origin) ==
      options_.sites.end()) {
    *why = "is on " + page->origin + ", which is not one of --sites";
    return -1;
  }
  auto [it, fresh] = page_of_url_.try_emplace(page->url, static_cast<int32_t>(pages_.size()));
  if (fresh) {
    pages_.push_back({page->url, "", std::nullopt, 0});
    first_url_.push_back(url);
  } else if (url.find('?') != std::string::npos &&
             first_url_[static_cast<size_t>(it->second)] != url &&
             problems_.size() < kMaxProblems) {
    // Two posts of a site with plain permalinks (?p=10, ?p=11): one page for the widget too.
    problems_.push_back({line, "a thread's URL " + QuotedText(url) + " is the page " +
                                   QuotedText(page->url) + " of " +
                                   QuotedText(first_url_[static_cast<size_t>(it->second)]) +
                                   " (a page's URL has no query): their comments are joined"});
  }
  return it->second;
}

Status ForeignPlan::Thread(ForeignThread thread) {
  if (!thread.alias) {
    ++counts_.threads;
  }
  std::string why;
  int32_t page = -1;
  if (thread.deleted) {
    why = "is deleted";
  } else {
    page = PageOf(thread.url, thread.line, &why);
  }
  if (page >= 0) {
    PlannedPage& p = pages_[static_cast<size_t>(page)];
    if (p.title.empty()) {
      p.title = thread.title;
    }
    if (thread.created_ms && (!p.created_ms || *thread.created_ms < *p.created_ms)) {
      p.created_ms = thread.created_ms;
    }
  } else {
    thread_problem_[thread.key] = "its thread (" + Line(thread.line) + ") " + why;
  }
  threads_[thread.key] = page;
  return {};
}

Status ForeignPlan::Comment(ForeignComment comment) {
  ++counts_.comments;
  if (!comment.thread_url.empty() && !threads_.contains(comment.thread)) {
    // Waline, Twikoo: the page is the comment's own field; the first comment makes it.
    ForeignThread implicit;
    implicit.key = comment.thread;
    implicit.url = comment.thread_url;
    implicit.line = comment.line;
    --counts_.threads;
    PL_CHECK(Thread(std::move(implicit)));
  }
  Read r;
  r.id = std::move(comment.id);
  r.thread = std::move(comment.thread);
  r.parent = std::move(comment.parent);
  r.line = comment.line;
  r.status = comment.status;
  r.deleted = comment.deleted;
  // A time before 1970 or after 9999 is no comment's (a file's placeholder, a garbled field).
  r.timed = comment.created_ms.has_value() && *comment.created_ms >= 0 &&
            *comment.created_ms <= kLastTimeMs;
  r.skip = std::move(comment.skip);
  read_.push_back(std::move(r));
  return {};
}

void ForeignPlan::Skip(size_t i, const std::string& why) {
  planned_[i].page = -1;
  ++counts_.skipped;
  if (problems_.size() < kMaxProblems) {
    problems_.push_back({read_[i].line, "comment " + QuotedText(read_[i].id) + " skipped: " + why});
  }
}

void ForeignPlan::Resolve() {
  const size_t n = read_.size();
  planned_.assign(n, PlannedComment{});
  std::unordered_map<std::string, int32_t> index;
  index.reserve(n);
  std::vector<uint8_t> state(n, 0);  // 0: not yet, 1: on the walk, 2: decided
  std::vector<uint8_t> skipped(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (read_[i].id.empty() || !index.try_emplace(read_[i].id, static_cast<int32_t>(i)).second) {
      read_[i].duplicate = true;
    }
  }
  // Decides comment i after its ancestors, walking up without recursion (chains may be long).
  auto decide_one = [&](size_t i) {
    const Read& r = read_[i];
    PlannedComment& p = planned_[i];
    auto skip = [&](const std::string& why) {
      skipped[i] = 1;
      Skip(i, why);
    };
    if (!r.skip.empty()) {
      return skip(r.skip);
    }
    if (r.duplicate) {
      return skip(r.id.empty() ? "it has no id" : "its id was seen before");
    }
    if (!r.timed) {
      return skip("its time cannot be read");
    }
    auto t = threads_.find(r.thread);
    if (t == threads_.end()) {
      return skip("its thread " + QuotedText(r.thread) + " is not in the file");
    }
    if (t->second < 0) {
      return skip(thread_problem_[r.thread]);
    }
    p.page = t->second;
    p.status = r.status;
    if (r.parent.empty()) {
      p.top = static_cast<int32_t>(i);
      return;
    }
    auto parent = index.find(r.parent);
    if (parent == index.end()) {
      return skip("its parent " + QuotedText(r.parent) + " is not in the file");
    }
    const auto q = static_cast<size_t>(parent->second);
    if (state[q] != 2) {
      return skip("it is its own ancestor");
    }
    if (skipped[q]) {
      return skip("its parent (" + Line(read_[q].line) + ") is skipped");
    }
    if (planned_[q].page != p.page) {
      return skip("its parent (" + Line(read_[q].line) + ") is on another page");
    }
    p.top = planned_[q].top;
    p.answers = static_cast<int32_t>(q);
  };
  std::vector<size_t> walk;
  for (size_t i = 0; i < n; ++i) {
    for (size_t at = i; state[at] == 0;) {
      state[at] = 1;
      walk.push_back(at);
      auto parent = read_[at].parent.empty() ? index.end() : index.find(read_[at].parent);
      if (parent == index.end() || read_[at].duplicate) {
        break;
      }
      at = static_cast<size_t>(parent->second);
    }
    // The walk ends at a root, a missing parent, a decided one or a cycle: decide from the
    // top down.
    while (!walk.empty()) {
      const size_t at = walk.back();
      walk.pop_back();
      decide_one(at);
      state[at] = 2;
    }
  }
  // Deleted comments: a top-level one with imported replies stays as a placeholder.
  std::vector<int64_t> live_replies(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!skipped[i] && !read_[i].deleted && planned_[i].top != static_cast<int32_t>(i)) {
      ++live_replies[static_cast<size_t>(planned_[i].top)];
    }
  }
  std::vector<uint8_t> imported(n, 0);
  for (size_t i = 0; i < n; ++i) {
    PlannedComment& p = planned_[i];
    if (skipped[i]) {
      continue;
    }
    if (read_[i].deleted) {
      if (p.top == static_cast<int32_t>(i) && live_replies[i] > 0) {
        p.deleted = true;
        ++counts_.placeholders;
      } else {
        p.page = -1;
        ++counts_.deleted_left_out;
        continue;
      }
    } else if (p.status == ForeignStatus::kApproved) {
      ++counts_.approved;
    } else if (p.status == ForeignStatus::kPending) {
      ++counts_.pending;
    } else {
      ++counts_.spam;
    }
    imported[i] = 1;
    ++pages_[static_cast<size_t>(p.page)].comments;
  }
  for (size_t i = 0; i < n; ++i) {
    if (planned_[i].answers >= 0 && !imported[static_cast<size_t>(planned_[i].answers)]) {
      planned_[i].answers = -1;
    }
  }
  read_.clear();
  read_.shrink_to_fit();
}

std::string DescribePlan(const ForeignPlan& plan, bool dry_run, size_t max_problems) {
  const PlanCounts& c = plan.counts();
  std::string out = "read " + std::to_string(c.threads) + " threads and " +
                    std::to_string(c.comments) + " comments\n";
  out += std::string(dry_run ? "would import: " : "to import: ") +
         std::to_string(plan.pages().size()) + " pages; comments: " + std::to_string(c.approved) +
         " approved, " + std::to_string(c.pending) + " pending, " + std::to_string(c.spam) +
         " spam, " + std::to_string(c.placeholders) + " deleted with replies (placeholders)\n";
  out += "left out: " + std::to_string(c.deleted_left_out) +
         " deleted; skipped: " + std::to_string(c.skipped) + "\n";
  const auto& problems = plan.problems();
  for (size_t i = 0; i < problems.size() && i < max_problems; ++i) {
    out += "  line " + std::to_string(problems[i].line) + ": " + problems[i].message + "\n";
  }
  if (problems.size() > max_problems) {
    out += "  (" + std::to_string(problems.size() - max_problems) + " more problems)\n";
  }
  return out;
}

}  // namespace plaudit::transfer
