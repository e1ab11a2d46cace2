#pragma once

// The text of a PDF as pdftotext -layout reads it (poppler-utils, in the package list); "" when
// it could not read it. For tests that check what a rendered report says.

#include "tests/support/process.h"

#include <string>

namespace shardmap::testing {

inline std::string pdfText(const std::string& pdf, const std::string& stderrFile)
{
    auto child = ChildProcess::spawn({ "/usr/bin/pdftotext", "-layout", pdf, "-" }, stderrFile);
    if (!child)
        return {};
    std::string text;
    while (auto line = child->readLine(std::chrono::seconds(30)))
        text += *line + "\n";
    return child->wait(std::chrono::seconds(30)) == 0 ? text : std::string();
}

} // namespace shardmap::testing
