#include "WelcomePage.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace tracelight::app {

WelcomePage::WelcomePage(const QString& sample, QWidget* parent) : QWidget(parent) {
    auto* title = new QLabel(tr("<h2>Tracelight</h2>"), this);
    auto* text = new QLabel(tr("Which components decide your requests' latency, how much slack the rest has, and what changed "
                               "between a good period and a bad one.<br>Start with traces you have — OpenTelemetry, Jaeger or "
                               "Zipkin JSON, a span table or an event log — or with the sample. You can also drop a file here."),
                            this);
    text->setWordWrap(true);
    text->setAlignment(Qt::AlignHCenter);
    // A fixed width and the height its wrapped lines need: a centred layout would otherwise cut them.
    text->setFixedWidth(620);
    text->setMinimumHeight(text->heightForWidth(620));
    m_open = new QPushButton(tr("Open…"), this);
    m_open->setToolTip(tr("A Tracelight database, or a trace file: it is imported into a database beside it (Ctrl+O)"));
    m_import = new QPushButton(tr("Import Traces…"), this);
    m_import->setToolTip(tr("Trace files into a new database, with the period they belong to (Ctrl+I)"));
    m_sample = new QPushButton(tr("Open the Sample"), this);
    m_sample->setToolTip(tr("20,000 generated page loads with their true critical paths: %1").arg(QDir::toNativeSeparators(sample)));
    m_sample->setVisible(!sample.isEmpty());
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(2);
    for (QWidget* w : {static_cast<QWidget*>(title), static_cast<QWidget*>(text)}) layout->addWidget(w, 0, Qt::AlignHCenter);
    layout->addSpacing(16);
    for (QPushButton* b : {m_open, m_import, m_sample}) {
        b->setMinimumWidth(220);
        layout->addWidget(b, 0, Qt::AlignHCenter);
    }
    layout->addStretch(3);
    connect(m_open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(m_import, &QPushButton::clicked, this, &WelcomePage::importRequested);
    connect(m_sample, &QPushButton::clicked, this, &WelcomePage::sampleRequested);
}

QString bundledSamplePath() {
    const QString path = QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral("../samples/pageload.tldb"));
    return QFileInfo::exists(path) ? QDir::cleanPath(path) : QString();
}

} // namespace tracelight::app
