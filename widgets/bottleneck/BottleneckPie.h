#pragma once
// The shares of the bottleneck types as a pie (QCustomPlot has none): a slice per type, largest first from
// twelve o'clock, its share written inside when it fits, and a legend of every type; exports as PNG/SVG/PDF.
#include <QColor>
#include <QWidget>
#include <vector>

namespace tracelight::widgets {

class BottleneckPie : public QWidget {
    Q_OBJECT
public:
    struct Slice {
        QString name;
        double share = 0;  // of 1
        QColor colour;
    };
    explicit BottleneckPie(QWidget* parent = nullptr);
    void setSlices(std::vector<Slice> slices, const QString& title);
    const std::vector<Slice>& slices() const { return m_slices; }
    QSize sizeHint() const override { return {320, 260}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Slice> m_slices;
    QString m_title;
};

} // namespace tracelight::widgets
