#pragma once
// The Bottlenecks tab's QCustomPlot charts, drawn from core's results as they are: the shares as horizontal
// bars, the stacked trend of mean contributions per time bucket, and each request's latency over time.
#include <QColor>
#include <QString>
#include <unordered_map>
#include <vector>

#include "bottleneck/BottleneckRequest.h"
#include "tracelight/bottleneck/BottleneckTrend.h"

class QCustomPlot;

namespace tracelight::widgets {

// One colour per type, the same in the table, the bars, the pie and the trend: distinct qualitative colours
// in the ranking's order (a hash of the name made neighbours of different services look alike), the gaps grey.
using TypeColours = std::unordered_map<std::string, QColor>;
TypeColours bottleneckTypeColours(const BottleneckSummary& ranking);

// At most maxBars bars: past that the smallest types are folded into one bar that says how many it holds
// (their names would overlap on the axis); the table lists them all.
void drawShareBars(QCustomPlot* plot, const BottleneckSummary& summary, const TypeColours& colours, int maxBars);
// How many bars fit the plot's height with readable labels.
int shareBarsThatFit(const QCustomPlot* plot);
// The strata of a slice side by side: one 100 % bar per stratum (top: the first), split into its types'
// shares in the types' colours (the table's), labelled with the stratum, its requests and mean latency.
// Types stack left to right in the order of `ranking` (the whole selection's).
void drawStrataShares(QCustomPlot* plot, const std::vector<StratumShares>& strata, const BottleneckSummary& ranking,
                      const TypeColours& colours);
QString strataSharesCsv(const std::vector<StratumShares>& strata);
void drawContributionTrend(QCustomPlot* plot, const BottleneckTrend& trend, const TypeColours& colours);
// The points are drawn in the order of trend.rows (x: start, seconds since the epoch; y: latency, ms).
void drawLatencyScatter(QCustomPlot* plot, const BottleneckTrend& trend);
// The index into trend.rows of the point within maxPixels of the pixel (x, y), nearest first; -1 if none.
int latencyPointNear(const QCustomPlot* plot, const BottleneckTrend& trend, double xPixel, double yPixel, double maxPixels = 8);

// The plots' data as CSV, for their export menus.
QString shareBarsCsv(const BottleneckSummary& summary);
QString trendCsv(const BottleneckTrend& trend);
QString latencyScatterCsv(const BottleneckTrend& trend, const std::vector<RequestId>& ids);

} // namespace tracelight::widgets
