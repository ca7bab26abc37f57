// Invariant 10 with real processes: plauditd is SIGKILLed while its delivery worker holds a
// claimed notice (the mail server hangs, so the worker is between claim and "sent"); the
// notice's lease is left in SQL. Once it passes, `plauditd notify` — another process, as a
// restarted or second instance would be — delivers it, once, with the notice's Message-ID.
#include <gtest/gtest.h>
#include <signal.h>

#include "plauditd_process.hpp"
#include "support/notify_sinks.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

class NotifyKillTest : public PlauditdProcessTest {
 protected:
  NotifyKillTest() : PlauditdProcessTest("plaudit-notify") {}

  // sqlite3 on the data dir's database: the first column of the first row ("" for none).
  std::string Sql(const std::string& query) {
    return Shell("sqlite3 -cmd '.timeout 5000' " + ShellQuote(data_dir() + "/plaudit.db") + " " +
                 ShellQuote(query));
  }

  std::vector<std::string> Flags(int smtp_port) const {
    return {"--password-hash",
            "minimal",
            "--rate-limits",
            "off",
            "--smtp",
            "smtp://127.0.0.1:" + std::to_string(smtp_port),
            "--mail-from",
            "Plaudit <comments@blog.example>",
            "--public-url",
            "https://comments.blog.example",
            "--smtp-timeout-ms",
            "60000",  // (its greeting: 5 s) the worker hangs until killed
            "--notify-lease-ms",
            "1000",
            "--notify-interval-ms",
            "100"};
  }
};

TEST_F(NotifyKillTest, ANoticeClaimedByAKilledProcessIsDeliveredOnceByAnother) {
  SmtpSink hanging(0, /*hang=*/true);
  const int smtp_port = hanging.port();
  const int port = FreeTcpPort();
  auto p = Start(Flags(smtp_port), port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  ASSERT_EQ(c.Post("/api/v1/users", R"({"username":"alice","password":"password123"})").status,
            201);
  auto s = c.Post("/api/v1/sessions", R"({"username":"alice","password":"password123"})");
  ASSERT_EQ(s.status, 201);
  const std::string token(s.Json().at("token").as_string());
  ASSERT_EQ(c.Patch("/api/v1/users/me", R"({"email":"alice@mail.example"})",
                    {{"Authorization", "Bearer " + token}})
                .status,
            200);
  // The worker claims the verification mail and hangs on the mail server.
  ASSERT_TRUE(
      WaitFor([&] { return Sql("SELECT attempts FROM outbox WHERE kind = 'verify'") == "1"; }, 10s))
      << Sql("SELECT attempts, lease_owner FROM outbox") << Log();
  const std::string owner = Sql("SELECT lease_owner FROM outbox WHERE kind = 'verify'");
  EXPECT_FALSE(owner.empty());
  p->Signal(SIGKILL);
  p->Wait(10s);
  EXPECT_EQ(Sql("SELECT delivered_at IS NULL FROM outbox WHERE kind = 'verify'"), "1");

  // The mail server comes back; the dead worker's lease passes (1 s).
  hanging.Stop();
  SmtpSink smtp(smtp_port);
  ASSERT_TRUE(WaitFor(
      [&] {
        return Sql("SELECT lease_until < CAST(strftime('%s','now') AS INTEGER) * 1000 "
                   "FROM outbox WHERE kind = 'verify'") == "1";
      },
      10s));
  std::vector<std::string> argv = {PLAUDITD_PATH, "notify", "--data-dir", data_dir()};
  for (const auto& f : Flags(smtp_port)) {
    argv.push_back(f);
  }
  Process notify(argv, log_path());
  ASSERT_EQ(notify.Wait(60s).value_or(-1), 0) << Log();
  auto mails = smtp.To("alice@mail.example");
  ASSERT_EQ(mails.size(), 1u) << Log();
  EXPECT_EQ(mails[0].Subject(), "Confirm your e-mail address");
  EXPECT_EQ(Sql("SELECT attempts FROM outbox WHERE kind = 'verify'"), "2");
  EXPECT_EQ(Sql("SELECT delivered_at IS NOT NULL FROM outbox WHERE kind = 'verify'"), "1");
  EXPECT_EQ(Sql("SELECT lease_owner IS NULL FROM outbox WHERE kind = 'verify'"), "1");

  // Run again: nothing is sent twice.
  Process again(argv, log_path());
  ASSERT_EQ(again.Wait(60s).value_or(-1), 0) << Log();
  EXPECT_EQ(smtp.To("alice@mail.example").size(), 1u);
}

}  // namespace
}  // namespace plaudit::testing
