#include "common/PlotExport.h"
#include "common/FileDialogs.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QPainter>
#include <QPdfWriter>
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

bool saveWidgetPicture(QWidget* widget, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    QPainter painter;
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
        if (!painter.begin(&svg)) return false;
        widget->render(&painter);
        return painter.end();
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(QSizeF(widget->width(), widget->height()), QPageSize::Point));
        pdf.setPageMargins(QMarginsF());
        pdf.setResolution(72);
        if (!painter.begin(&pdf)) return false;
        widget->render(&painter);
        return painter.end();
    }
    return widget->grab().save(path);
}

void attachPictureExport(QWidget* widget, const QString& defaultFileName) {
    widget->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(widget, &QWidget::customContextMenuRequested, widget, [widget, defaultFileName](const QPoint& pos) {
        QMenu menu(widget);
        menu.addAction(QObject::tr("Save as PNG, SVG or PDF…"), widget, [widget, defaultFileName] {
            const QString path = chooseFileToSave(widget, QObject::tr("Save the picture"), defaultFileName,
                                                              QObject::tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
            if (!path.isEmpty()) saveWidgetPicture(widget, path);
        });
        menu.exec(widget->mapToGlobal(pos));
    });
}

void setPlotExportName(QCustomPlot* plot, const QString& name) { plot->setProperty("tracelightExportName", name); }

QString suggestedPlotFileName(const QCustomPlot* plot) {
    QString base;
    for (const QChar c : plot->property("tracelightExportName").toString().toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('_')) base += c;
        else if (!base.endsWith(QLatin1Char('-'))) base += QLatin1Char('-');
    }
    while (base.startsWith(QLatin1Char('-')) || base.startsWith(QLatin1Char('.'))) base.remove(0, 1);
    base.truncate(100);
    while (base.endsWith(QLatin1Char('-')) || base.endsWith(QLatin1Char('.'))) base.chop(1);
    return (base.isEmpty() ? QStringLiteral("plot") : base) + QStringLiteral(".png");
}

void attachPlotExport(QCustomPlot* plot, std::function<QString()> csv) {
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, csv](const QPoint& pos) {
        QMenu menu(plot);
        menu.addAction(QObject::tr("Save as PNG, SVG or PDF…"), plot, [plot] {
            const QString path = chooseFileToSave(plot, QObject::tr("Save plot"), suggestedPlotFileName(plot),
                                                              QObject::tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
            if (!path.isEmpty()) savePlot(plot, path);
        });
        menu.addAction(QObject::tr("Copy data as CSV"), plot, [csv] { QApplication::clipboard()->setText(csv()); });
        menu.exec(plot->mapToGlobal(pos));
    });
}

} // namespace tracelight::widgets
