#include "transfer/foreign_import.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/web_origin.hpp"
#include "domain/guest_author.hpp"
#include "text/markdown.hpp"
#include "text/sanitizer.hpp"
#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::transfer {
namespace {

// Comments taken from the file before they are written (a step of the writing pass), and
// their texts' bytes (a reader keeps 1 MiB of each): whichever is reached first.
constexpr size_t kStepComments = 20'000;
constexpr size_t kStepBytes = size_t{32} << 20;
// Comments a transaction writes, at most (a step's articles are grouped until they reach it):
// the import's cost is its commits (each an fsync), so one for a few thousand comments, not
// one an article; and not more, so that a running server's writes do not wait long for it.
constexpr size_t kTransactionComments = 2'000;
constexpr int64_t kIdPage = 10'000;
constexpr size_t kAnswersPage = 1'000;
// A guest's name: 1-50 code points (API.md "Guests").
constexpr size_t kGuestNameCodePoints = 50;
// Comments written other than the file has them, logged one by one (the rest only counted).
constexpr int64_t kMaxReports = 100;

class Collect : public ForeignSink {
 public:
  Status Thread(ForeignThread) override { return {}; }
  Status Comment(ForeignComment c) override {
    got.push_back(std::move(c));
    return {};
  }
  std::vector<ForeignComment> got;
};

// The file's author as a guest who passes the rules a guest commenting now must (API.md
// "Guests"): one line (controls dropped), no bidi embeddings, at most 50 characters; a name
// that still does not pass (only invisible characters, a bidi mark) is "Anonymous". The
// e-mail address only when it has an address's shape. (A name that looks like a registered
// user's is marked when it is stored: sql::CommentTable::InsertImported.)
domain::GuestIdentity ImportedGuest(const std::string& name, const std::string& email) {
  std::string line;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    line += c < 0x20 || c == 0x7F ? ' ' : ch;
  }
  line = text::StripBidiEmbeddings(line);
  const std::string cut(text::PrefixCodePoints(text::Trim(line), kGuestNameCodePoints));
  auto guest = domain::NormalizeGuest(cut, "");
  if (!guest) {
    guest = domain::NormalizeGuest("Anonymous", "");
  }
  domain::GuestIdentity g = guest ? std::move(*guest) : domain::GuestIdentity{"Anonymous", "", ""};
  const std::string_view mail = text::Trim(email);
  if (domain::CheckEmail(mail, "email")) {
    g.email = std::string(mail);
  }
  return g;
}

// A comment's text as Plaudit keeps it: HTML through the sanitiser's allow-list, Markdown
// (Waline) rendered as a reader's comment is, with the HTML Waline allowed in it judged by the
// same allow-list (its mentions are not marks of ours: none are kept).
Result<text::SanitizedHtml> Render(std::string_view input, TextFormat format, bool images) {
  if (format == TextFormat::kMarkdown) {
    text::MarkdownOptions options;
    options.raw_html = true;
    options.images = images;
    return text::RenderCommentMarkdown(input, options);
  }
  text::SanitizeOptions options;
  options.user_links = true;
  options.images = images;
  return text::SanitizeHtml(input, options);
}

// Render() of the comment's text, cut (by halves, between characters) until what it renders
// to is within what a comment keeps (kMaxHtmlBytes, text::kMaxHtmlDepth's tree): an imported
// comment keeps as much of its text as fits. `cut` is set when it was shortened.
Result<text::SanitizedHtml> RenderToFit(const ForeignComment& r, bool images, bool& cut) {
  std::string_view input = r.text;
  for (;;) {
    auto out = Render(input, r.format, images);
    if (out || input.size() < 1024) {
      return out;
    }
    input = input.substr(0, text::CutPoint(input, input.size() / 2));
    cut = true;
  }
}

model::CommentStatus StatusOf(ForeignStatus s) {
  switch (s) {
    case ForeignStatus::kPending:
      return model::CommentStatus::kPending;
    case ForeignStatus::kSpam:
      return model::CommentStatus::kSpam;
    case ForeignStatus::kApproved:
      break;
  }
  return model::CommentStatus::kApproved;
}

// What one step of the writing pass writes: comments in the file's order, with their places.
struct Step {
  std::vector<size_t> places;
  std::vector<ForeignComment> records;
  size_t bytes = 0;  // of their texts
};

class Writer {
 public:
  Writer(ForeignWrite& w, const ForeignPlan& plan)
      : w_(w), plan_(plan), key_(std::string(SourceName(w.source)) + ":" + w.digest) {}

  Awaitable<Result<WriteCounts>> Run() {
    ids_.assign(plan_.size(), 0);
    if (w_.users_by_email) {
      PL_CO_TRY(auto users, co_await w_.comments.ImportUsers());
      users_ = std::make_shared<const sql::VerifiedAddresses>(std::move(users));
    }
    PL_CO_CHECK(co_await ReadEarlier());
    PL_CO_CHECK(co_await MakePages());
    for (int phase = 0; phase < 2; ++phase) {
      PL_CO_CHECK(co_await Pass(/*replies=*/phase == 1));
    }
    PL_CO_CHECK(co_await SetLaterAnswers());
    co_return counts_;
  }

 private:
  Awaitable<Status> ReadEarlier() {
    for (int64_t after = -1;;) {
      PL_CO_TRY(const auto got, co_await w_.comments.ImportedIds(key_, after, kIdPage));
      for (const auto& [idx, id] : got) {
        if (idx >= 0 && static_cast<size_t>(idx) < ids_.size()) {
          ids_[static_cast<size_t>(idx)] = id;
          ++counts_.earlier;
        }
        after = idx;
      }
      if (static_cast<int64_t>(got.size()) < kIdPage) {
        co_return Status{};
      }
    }
  }

  Awaitable<Status> MakePages() {
    for (const PlannedPage& p : plan_.pages()) {
      PL_CO_TRY(const PageUrl page, NormalisePageUrl(p.url));
      PL_CO_TRY(const int64_t article, co_await w_.pages.ImportThread(page, p.title));
      articles_.push_back(article);
    }
    counts_.pages = static_cast<int64_t>(articles_.size());
    co_return Status{};
  }

  // The file read once more, writing the top-level comments (or the replies) not yet written.
  Awaitable<Status> Pass(bool replies) {
    std::ifstream in(w_.path, std::ios::binary);
    if (!in) {
      co_return Fail(ErrorCode::kUnavailable, "cannot read " + w_.path);
    }
    Collect collect;
    const auto stream = OpenForeign(w_.source, in, collect);
    size_t next = 0;
    Step step;
    for (bool more = true; more;) {
      auto stepped = stream->Step();
      PL_CO_CHECK(stepped);
      more = *stepped;
      for (ForeignComment& c : collect.got) {
        const size_t i = next++;
        if (i >= plan_.size()) {
          co_return Fail(ErrorCode::kInvalidArgument, "the file changed since it was first read");
        }
        const PlannedComment& p = plan_.comment(i);
        const bool top = p.top == static_cast<int32_t>(i);
        if (p.page < 0 || ids_[i] != 0 || top == replies) {
          continue;
        }
        step.places.push_back(i);
        step.bytes += c.text.size();
        step.records.push_back(std::move(c));
      }
      collect.got.clear();
      const bool full = step.places.size() >= kStepComments || step.bytes >= kStepBytes;
      if (full || (!more && !step.places.empty())) {
        PL_CO_CHECK(co_await Write(step));
        step = Step{};
      }
    }
    if (next != plan_.size()) {
      co_return Fail(ErrorCode::kInvalidArgument, "the file changed since it was first read");
    }
    co_return Status{};
  }

  // One step's comments: one batch an article, several articles a transaction.
  Awaitable<Status> Write(const Step& step) {
    std::map<int64_t, std::vector<size_t>> by_article;  // article → positions in step
    for (size_t k = 0; k < step.places.size(); ++k) {
      const auto page = static_cast<size_t>(plan_.comment(step.places[k]).page);
      by_article[articles_[page]].push_back(k);
    }
    Group group;  // by ascending article id (the map's order): the lock order
    size_t comments = 0;
    for (auto& [article, positions] : by_article) {
      comments += positions.size();
      group.emplace_back(article, std::move(positions));
      if (comments >= kTransactionComments) {
        PL_CO_CHECK(co_await WriteGroup(step, group));
        group.clear();
        comments = 0;
      }
    }
    if (!group.empty()) {
      PL_CO_CHECK(co_await WriteGroup(step, group));
    }
    co_return Status{};
  }

  using Group = std::vector<std::pair<int64_t, std::vector<size_t>>>;  // article → positions

  Awaitable<Status> WriteGroup(const Step& step, const Group& group) {
    for (int attempt = 0;; ++attempt) {
      std::vector<std::pair<int64_t, std::vector<sql::ImportedComment>>> batches;
      for (const auto& [article, positions] : group) {
        PL_CO_TRY(auto batch, co_await Batch(article, step, positions));
        batches.emplace_back(article, std::move(batch));
      }
      // The batches as sent, to check what was written against (the service takes them).
      std::vector<std::vector<std::pair<int64_t, int64_t>>> sent;  // per article: (idx, id)
      for (const auto& [article, batch] : batches) {
        auto& pairs = sent.emplace_back();
        for (const sql::ImportedComment& c : batch) {
          pairs.emplace_back(c.idx, c.id);
        }
      }
      auto written = co_await w_.comments.ImportBatches(key_, users_, std::move(batches));
      if (!written && written.error().code == ErrorCode::kAlreadyExists && attempt == 0) {
        // An id SQL has already (a Redis sequence that came back older): resume it above
        // SQL's and make the batches again with new ids.
        PL_CO_CHECK(co_await w_.comments.ReseedIds());
        continue;
      }
      PL_CO_CHECK(written);
      for (size_t a = 0; a < sent.size(); ++a) {
        std::set<int64_t> rows;
        for (const auto& row : (*written)[a].rows) {
          rows.insert(row.id);
        }
        for (const auto& [idx, id] : sent[a]) {
          if (!rows.contains(id)) {
            co_return Fail(ErrorCode::kAlreadyExists,
                           "another import of this file wrote its comment " +
                               std::to_string(idx + 1) +
                               " meanwhile: run it again once that one has ended");
          }
          ids_[static_cast<size_t>(idx)] = id;
          ++counts_.written;
        }
      }
      co_return Status{};
    }
  }

  Awaitable<Result<std::vector<sql::ImportedComment>>> Batch(int64_t article, const Step& step,
                                                             const std::vector<size_t>& positions) {
    std::vector<sql::ImportedComment> batch;
    std::unordered_map<size_t, int64_t> fresh;  // place → id, for answers within the batch
    // The batch's ids in one Redis call (ids are taken, not returned: a batch refused leaves
    // a gap in the sequence, as a failed comment write does).
    PL_CO_TRY(const std::vector<int64_t> ids,
              co_await w_.comments.NewImportIds(article, static_cast<int64_t>(positions.size())));
    for (size_t n = 0; n < positions.size(); ++n) {
      const size_t k = positions[n];
      const size_t i = step.places[k];
      const ForeignComment& r = step.records[k];
      const PlannedComment& p = plan_.comment(i);
      sql::ImportedComment c;
      c.idx = static_cast<int64_t>(i);
      c.id = ids[n];
      fresh[i] = c.id;
      if (p.top != static_cast<int32_t>(i)) {
        c.top = ids_[static_cast<size_t>(p.top)];
        if (c.top == 0) {
          // The top-level pass writes every top-level comment first (the plan places a reply
          // only under one it keeps): a reply without its written top would be a stray.
          co_return Fail(ErrorCode::kInternal,
                         "comment " + std::to_string(i + 1) + " has no written top-level comment");
        }
      }
      if (p.answers >= 0) {
        const auto a = static_cast<size_t>(p.answers);
        const int64_t answered = ids_[a] != 0 ? ids_[a] : (fresh.contains(a) ? fresh[a] : 0);
        if (answered != 0) {
          c.answers = answered;
        }
      }
      c.created_at_ms = r.created_ms.value_or(0);
      c.status = StatusOf(p.status);
      c.deleted = p.deleted;
      domain::GuestIdentity guest = ImportedGuest(r.author, r.email);
      c.guest_name = std::move(guest.name);
      c.guest_name_key = std::move(guest.name_key);
      c.guest_email = std::move(guest.email);
      if (!c.deleted) {
        bool cut = r.text_cut;
        auto text = RenderToFit(r, w_.images, cut);
        if (text) {
          c.body = std::move(text->text);
          c.html = std::move(text->html);
        } else {
          c.deleted = true;  // text nothing of which renders (not UTF-8): a placeholder
        }
        if (!text || cut) {
          Report(i, r,
                 text ? "its text was cut to what a comment keeps"
                      : "its text could not be read (" + text.error().message +
                            "): imported without it");
        }
      }
      batch.push_back(std::move(c));
    }
    co_return batch;
  }

  // Replies written before the comment they answer (one later in the file): their answers_id,
  // now that every id is known (also for replies an earlier run wrote).
  Awaitable<Status> SetLaterAnswers() {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (size_t i = 0; i < plan_.size(); ++i) {
      const PlannedComment& p = plan_.comment(i);
      if (p.page < 0 || p.answers < 0 || static_cast<size_t>(p.answers) < i) {
        continue;
      }
      const auto a = static_cast<size_t>(p.answers);
      if (ids_[i] != 0 && ids_[a] != 0) {
        pairs.emplace_back(ids_[i], ids_[a]);
      }
      if (pairs.size() >= kAnswersPage) {
        PL_CO_CHECK(co_await w_.comments.SetImportedAnswers(std::move(pairs)));
        pairs.clear();
      }
    }
    if (!pairs.empty()) {
      PL_CO_CHECK(co_await w_.comments.SetImportedAnswers(std::move(pairs)));
    }
    co_return Status{};
  }

  // A comment written other than the file has it: logged (the first kMaxReports), counted.
  // (Once: a batch made again after a reseed reports nothing more.)
  void Report(size_t place, const ForeignComment& r, const std::string& what) {
    if (!reported_.insert(place).second) {
      return;
    }
    if (++counts_.altered <= kMaxReports) {
      spdlog::warn("line {}: comment {}: {}", r.line, QuotedText(r.id), what);
    }
  }

  ForeignWrite& w_;
  const ForeignPlan& plan_;
  const std::string key_;
  std::vector<int64_t> ids_;       // place → comment id (0: not written)
  std::vector<int64_t> articles_;  // plan page → article
  // --users-by-email: the users' verified addresses, read once; null without it.
  std::shared_ptr<const sql::VerifiedAddresses> users_;
  WriteCounts counts_;
  std::unordered_set<size_t> reported_;  // places of the comments reported
};

}  // namespace

Awaitable<Result<WriteCounts>> WriteForeign(ForeignWrite w, const ForeignPlan& plan) {
  Writer writer(w, plan);
  co_return co_await writer.Run();
}

}  // namespace plaudit::transfer
