// CommentService for guests (API.md "Guests and sign-in from elsewhere"): a comment without an
// account, and the edit token that stands in for a session on that one comment.
//
// A guest's comment goes through CreateAs as an account's does (the same article and parent
// checks, spam signals, policy and duplicate window), written by the reserved '@guest' account
// with the guest's own name; its edit token's hash is stored with it. Afterwards the token
// proves nothing but "the writer of this comment", within the edit window: GuestOwner turns it
// into the principal of the '@guest' account for Get, Edit and Delete of that same comment (the
// handler passes the id the token was checked for), which check the comment's author as for
// anyone, so the token of one guest comment can neither reach another nor widen any right.
#include "common/time.hpp"
#include "domain/comments.hpp"
#include "domain/guest_token.hpp"

namespace plaudit::domain {

Awaitable<Result<GuestIdentity>> CommentService::AdmitGuest(std::string_view name,
                                                            std::string_view email,
                                                            const std::string& address) {
  if (guests_.mode == GuestMode::kOff) {
    co_return Fail(ErrorCode::kUnauthenticated, "sign in to comment: this site takes no guests");
  }
  PL_CO_TRY(GuestIdentity identity, NormalizeGuest(name, email));
  // Checked again in the insert's transaction (a name registered meanwhile); here, so that a
  // refused name costs no comment id, no page thread and no part of the address's budget.
  PL_CO_TRY(const bool held, co_await table_.NameKeyHeld(identity.name_key));
  if (held) {
    co_return Fail(ErrorCode::kAlreadyExists,
                   "guest.name looks like a registered user's name; choose another");
  }
  if (guests_.limiter != nullptr && guests_.per_address.enabled()) {
    PL_CO_CHECK(co_await guests_.limiter->Enforce(
        "guest-addr", address, guests_.per_address,
        "too many guest comments from this address; try again later or sign in"));
  }
  co_return identity;
}

Awaitable<Result<PostedComment>> CommentService::CreateAsGuest(GuestIdentity identity,
                                                               std::string address,
                                                               int64_t article_id,
                                                               CommentInput in) {
  GuestToken token = NewGuestToken();
  const GuestPost post{std::move(identity), std::move(address), std::move(token.hash)};
  // Reads and placement as any reader's; the guest's own held comments are theirs by token.
  Principal guest;
  guest.role = Role::kUser;
  PL_CO_TRY(Comment c, co_await CreateAs(guest, &post, article_id, std::move(in)));
  co_return PostedComment{std::move(c), std::move(token.token)};
}

Awaitable<Result<Principal>> CommentService::GuestOwner(int64_t id, std::string_view edit_token) {
  PL_CO_TRY(const std::optional<std::string> hash, co_await table_.EditTokenHash(id));
  // No guest comment of that id: 404 whatever else the id may be (an account's comment, a
  // held one), so a token reveals nothing of comments that are not its own.
  if (!hash) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  if (!GuestTokenMatches(edit_token, *hash)) {
    co_return Fail(ErrorCode::kPermissionDenied, "the edit token is not this comment's");
  }
  if (guests_.mode == GuestMode::kOff) {
    co_return Fail(ErrorCode::kUnauthenticated, "this site takes no guests now: sign in");
  }
  PL_CO_TRY(const Comment c, co_await Peek(id));
  // A token lasts as long as the edit window (API.md): a copy leaked later deletes nothing.
  if (NowMs() - c.created_at_ms > edit_window_ms_) {
    co_return Fail(ErrorCode::kPermissionDenied, "the edit window of this comment has passed");
  }
  Principal owner;
  owner.id = c.author.id;
  owner.username = c.author.username;
  owner.display_name = c.author.display_name;
  owner.role = Role::kUser;
  co_return owner;
}

}  // namespace plaudit::domain
