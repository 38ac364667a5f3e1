#include "common/PlotExport.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QMenu>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace tracelight::widgets {

bool savePlot(QCustomPlot* plot, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("pdf")) return plot->savePdf(path);
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(plot->size());
        svg.setViewBox(QRect(QPoint(0, 0), plot->size()));
        QCPPainter painter;
        if (!painter.begin(&svg)) return false;
        plot->toPainter(&painter, plot->width(), plot->height());
        painter.end();
        return true;
    }
    return plot->savePng(path, 0, 0, 1.0);
}

void attachPlotExport(QCustomPlot* plot, std::function<QString()> csv) {
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, csv](const QPoint& pos) {
        QMenu menu(plot);
        menu.addAction(QObject::tr("Save as PNG, SVG or PDF…"), plot, [plot] {
            const QString path = QFileDialog::getSaveFileName(plot, QObject::tr("Save plot"), QStringLiteral("plot.png"),
                                                              QObject::tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
            if (!path.isEmpty()) savePlot(plot, path);
        });
        menu.addAction(QObject::tr("Copy data as CSV"), plot, [csv] { QApplication::clipboard()->setText(csv()); });
        menu.exec(plot->mapToGlobal(pos));
    });
}

} // namespace tracelight::widgets
