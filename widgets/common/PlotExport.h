#pragma once
// Every plot's context menu: save as PNG, SVG or PDF, and copy its data as CSV.
#include <functional>

#include <QString>

class QCustomPlot;
class QWidget;

namespace tracelight::widgets {

// csv: the plot's data as CSV text (with a header row), made when asked.
void attachPlotExport(QCustomPlot* plot, std::function<QString()> csv);
bool savePlot(QCustomPlot* plot, const QString& path);  // by the file's suffix: .png, .svg or .pdf
// What the plot shows, e.g. "slack CDF web · pageload": the save dialog's default file name comes from it
// ("slack-cdf-web-pageload.png"), so plots saved one after another do not overwrite one "plot.png".
void setPlotExportName(QCustomPlot* plot, const QString& name);
QString suggestedPlotFileName(const QCustomPlot* plot);
// Any other view's picture (graphs drawn with QPainter), by the suffix: .png, .svg or .pdf.
bool saveWidgetPicture(QWidget* widget, const QString& path);
// Such a view's context menu: save as PNG, SVG or PDF (the dialog proposes defaultFileName).
void attachPictureExport(QWidget* widget, const QString& defaultFileName);

} // namespace tracelight::widgets
