// The actor's name when none is given: $USER, else the effective user's login name, never
// "unknown" (issue 26).
#include "core/util/login_name.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <pwd.h>
#include <string>
#include <unistd.h>

namespace shardmap::core {
namespace {

// Sets or unsets $USER for one test and puts it back.
class UserVariable {
public:
    explicit UserVariable(const char* value)
    {
        if (const char* old = std::getenv("USER"))
            m_old = old;
        if (value)
            setenv("USER", value, 1);
        else
            unsetenv("USER");
    }
    ~UserVariable()
    {
        if (m_old)
            setenv("USER", m_old->c_str(), 1);
        else
            unsetenv("USER");
    }

private:
    std::optional<std::string> m_old;
};

TEST(LoginName, IsUserWhenSet)
{
    UserVariable user("alice");
    EXPECT_EQ(loginName(), "alice");
}

TEST(LoginName, IsTheLoginNameWithoutUser)
{
    const passwd* entry = getpwuid(geteuid());
    ASSERT_NE(entry, nullptr) << "this test needs a passwd entry for its user";
    for (const char* value : { static_cast<const char*>(nullptr), "" }) {
        UserVariable user(value);
        EXPECT_EQ(loginName(), entry->pw_name);
    }
}

} // namespace
} // namespace shardmap::core
