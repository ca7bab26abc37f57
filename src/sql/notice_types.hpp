#pragma once
// Values the notice tables (sql/notices.hpp) share with the comment writes that fill them.
#include <string>

namespace plaudit::sql {

// A guest's address as a comment gives it, with what its row needs if it is new: the
// confirmation link's token (mailed once) and its hash (kept), the unsubscribe key, and the
// language its mails are written in.
struct GuestAddress {
  std::string email;
  std::string token;       // for the confirmation mail only
  std::string token_hash;  // kept in guest_addresses
  std::string unsubscribe_key;
  std::string language = "en";
};

}  // namespace plaudit::sql
