// SqliteCheckpointer (connection_impl.hpp): WAL checkpoints on a thread of their own.
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <chrono>
#include <string>
#include <utility>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

struct SqliteCheckpointer::Handle {
  sqlite3* db = nullptr;
  ~Handle() { sqlite3_close_v2(db); }
};

namespace {
// A connection's busy timeout: what a PASSIVE checkpoint never waits for, and what opening
// the connection may.
constexpr int kBusyTimeoutMs = 5000;
// A RESTART checkpoint holds the write lock while it waits for readers: at most this long,
// and after one that could not finish (a long reader: a backup, an export), none for
// kRestartPause, so that writers are held up rarely and briefly, never on every commit.
constexpr int kRestartWaitMs = 200;
constexpr auto kRestartPause = std::chrono::seconds(30);
}  // namespace

SqliteCheckpointer::SqliteCheckpointer(std::string path) : path_(std::move(path)) {
  thread_ = std::thread([this] { Loop(); });
}

SqliteCheckpointer::~SqliteCheckpointer() { Stop(); }

void SqliteCheckpointer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void SqliteCheckpointer::Note(int wal_pages) {
  if (wal_pages < kCheckpointPages) {
    return;
  }
  std::lock_guard lock(mu_);
  if (!wanted_) {
    wanted_ = true;
    cv_.notify_one();
  }
}

Result<Store::WalState> SqliteCheckpointer::CheckpointNow() {
  return Run(SQLITE_CHECKPOINT_PASSIVE);
}

void SqliteCheckpointer::Loop() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return wanted_ || stopping_; });
      if (stopping_) {
        return;
      }
      wanted_ = false;  // commits after this point ask again
    }
    auto state = Run(SQLITE_CHECKPOINT_PASSIVE);
    const auto now = std::chrono::steady_clock::now();
    if (state && state->frames > kWalLimitPages && now >= restart_after_) {
      // The WAL outgrew its bound: readers kept the passive checkpoints from copying it all,
      // or from letting a writer start it over. Wait for them this once, briefly.
      spdlog::warn(
          "sqlite: the WAL holds {} frames ({} not checkpointed); running a RESTART "
          "checkpoint",
          state->frames, state->frames - state->checkpointed);
      state = Run(SQLITE_CHECKPOINT_RESTART);
      if (state && state->checkpointed < state->frames) {
        restart_after_ = now + kRestartPause;  // a reader still holds it: not again soon
      }
    }
    if (!state) {
      spdlog::warn("sqlite: checkpoint failed: {}", state.error().message);
    }
  }
}

Result<Store::WalState> SqliteCheckpointer::Run(int mode) {
  std::lock_guard lock(run_mu_);
  if (!db_) {
    auto handle = std::make_unique<Handle>();
    const int rc = sqlite3_open_v2(path_.c_str(), &handle->db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      return Fail(ErrorCode::kUnavailable,
                  std::string("sqlite: cannot open the database to checkpoint: ") +
                      (handle->db ? sqlite3_errmsg(handle->db) : sqlite3_errstr(rc)));
    }
    sqlite3_busy_timeout(handle->db, kBusyTimeoutMs);
    // A connection learns the database is in WAL mode when it first reads it; until then a
    // checkpoint on it does nothing (and reports -1 frames).
    char* message = nullptr;
    if (sqlite3_exec(handle->db, "PRAGMA journal_mode=WAL", nullptr, nullptr, &message) !=
        SQLITE_OK) {
      std::string what = message ? message : sqlite3_errmsg(handle->db);
      sqlite3_free(message);
      return Fail(ErrorCode::kUnavailable,
                  "sqlite: cannot open the database to checkpoint: " + what);
    }
    db_ = std::move(handle);
  }
  int frames = 0;
  int checkpointed = 0;
  if (mode == SQLITE_CHECKPOINT_RESTART) {
    sqlite3_busy_timeout(db_->db, kRestartWaitMs);
  }
  const int rc = sqlite3_wal_checkpoint_v2(db_->db, nullptr, mode, &frames, &checkpointed);
  if (mode == SQLITE_CHECKPOINT_RESTART) {
    sqlite3_busy_timeout(db_->db, kBusyTimeoutMs);
  }
  // BUSY: another checkpoint (another process's) is running, or RESTART ran out of time;
  // the WAL state it reports is still true.
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
    std::string what = sqlite3_errmsg(db_->db);
    db_.reset();  // reopened on the next run
    return Fail(ErrorCode::kUnavailable, "sqlite: checkpoint: " + what);
  }
  return Store::WalState{frames, checkpointed};
}

}  // namespace plaudit::sql
