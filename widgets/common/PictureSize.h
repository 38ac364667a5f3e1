#pragma once
// A picture's size written WIDTHxHEIGHT, from 200x150 to 10000x10000 pixels (render --size, --screenshot --size).
// Plain C++: the command line checks it without loading Qt.
#include <cstdio>
#include <optional>
#include <string>

namespace tracelight::widgets {

struct PictureSize {
    int width = 0, height = 0;
};

inline std::optional<PictureSize> parsePictureSize(const std::string& text) {
    int width = 0, height = 0;
    char extra = 0;
    if (std::sscanf(text.c_str(), "%dx%d%c", &width, &height, &extra) != 2) return std::nullopt;
    if (width < 200 || height < 150 || width > 10000 || height > 10000) return std::nullopt;
    return PictureSize{width, height};
}

} // namespace tracelight::widgets
