#pragma once
// The aggregate studies over every analysed request: breakdown (summed delay vs critical path, by
// category and stratified by an attribute, with each category's CDF of critical-path share), outliers,
// the slack scatter, slack studies (CDF with a cut-off, correlation per slack bucket, prediction from
// a user's previous request), and what-if re-scheduling. Results come from core through the session: this view
// asks (a request signal per study), the session computes off the GUI thread (app/jobs/AggregateJobs.cpp), the
// view draws what comes back; a newer choice drops an older result.
#include <QWidget>
#include <functional>
#include <map>
#include <memory>

#include "aggregates/AggregateRequests.h"
#include "tracelight/studies/Aggregates.h"

class QCheckBox;
class QComboBox;
class QSpinBox;
class QLabel;
class QDoubleSpinBox;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QCustomPlot;

namespace tracelight::widgets {

class JobRunner;
class BreakdownPlot;
class CdfPlot;
class SlackScatter;

class AggregatesView : public QWidget {
    Q_OBJECT
public:
    explicit AggregatesView(QWidget* parent = nullptr);

    // attributeValues: a request attribute per aggregate row (the app reads it from the database). It is called
    // on worker threads (once per key; the view keeps what it returned), so it must open its own connection.
    void setAggregates(std::shared_ptr<const RequestAggregates> aggregates, QStringList attributeKeys,
                       std::function<std::vector<std::string>(const QString&)> attributeValues,
                       std::function<QString(std::uint32_t)> typeName);
    void setWhatIfResult(const std::vector<TimeNs>& after, const QString& label);  // latencies per request row
    void showPage(int index);
    // Named in the plots' default export file names (the database, say).
    void setExportContext(const QString& context) { m_exportContext = context; }
    bool isComputing() const;  // a study asked of the session (or a plot's sorting) is not drawn yet
    bool waitForResults();     // runs the event loop until every study is in (tests, screenshots); false if none ran

    BreakdownPlot* breakdownPlot() const { return m_breakdown; }
    SlackScatter* scatter() const { return m_scatter; }
    CdfPlot* whatIfPlot() const { return m_whatIf; }
    CdfPlot* shareCdf() const { return m_shareCdf; }
    CdfPlot* slackCdf() const { return m_slackCdf; }
    QComboBox* whatIfTarget() const { return m_whatIfTarget; }
    QTableWidget* outlierTable() const { return m_outlierTable; }
    QTableWidget* outlierSlackTable() const { return m_outlierSlackTable; }
    QSpinBox* quantiles() const { return m_quantiles; }
    QCustomPlot* slackBucketPlot() const { return m_bucketPlot; }
    QCustomPlot* slackPredictionPlot() const { return m_predictionPlot; }
    QComboBox* stratifyBy() const { return m_stratifyBy; }
    QLabel* breakdownAa() const { return m_breakdownAa; }  // the A/A figure beside the strata
    QLabel* outlierSummary() const { return m_outlierSummary; }
    QComboBox* scatterCategory() const { return m_scatterCategory; }
    QComboBox* slackCategory() const { return m_slackCategory; }
    QString slackNotice() const;  // why the slack studies show nothing for this category (empty when they do)

    // The session's answers to the requests below.
    void showBreakdown(std::shared_ptr<BreakdownOutcome> outcome);  // its parts are moved into the plots
    void showOutliers(std::shared_ptr<const Outliers> outcome);
    void showSlack(std::shared_ptr<SlackOutcome> outcome);
    void showAttributeValues(std::shared_ptr<const std::vector<std::string>> values);
    void startOnCategory(int category);  // the scatter's and slack studies' first category, then draw them

signals:
    // The studies the tab asks of the session (answered with the slots above).
    void breakdownRequested(const BreakdownRequest& request);
    void outliersRequested(const OutlierRequest& request);
    void slackRequested(const SlackRequest& request);
    void attributeValuesRequested(const AttributeValuesRequest& request);
    void slackCategoryRequested(const SlackCategoryRequest& request);
    void whatIfRequested(WhatIfTarget target, double factor, const QString& label);
    void requestsBrushed(const std::vector<RequestId>& ids);
    void requestActivated(RequestId id);
    void resultsReady();  // the last running study has been drawn

private:
    void refreshBreakdown();
    void refreshOutliers();
    void drawPrediction(const SlackPrediction& prediction, TimeNs cutoffNs, const QString& name, const QString& within);
    void refreshScatter();
    void refreshSlackStudies(bool fromCutOff);
    void refreshWithinValues();
    QString bucketToolTip(const QPoint& pos) const;
    void jobFinished();
    void drawWhatIf(std::vector<TimeNs> after, const QString& label);
    void nameExport(QCustomPlot* plot, const QString& what);


    std::shared_ptr<const RequestAggregates> m_data;
    std::shared_ptr<RequestAttributes> m_attributes;  // read once per key, shared by the studies
    // The studies asked for and not drawn yet (a study asked again supersedes the last; new aggregates drop them).
    enum Awaiting : unsigned { kBreakdown = 1, kOutliers = 2, kSlack = 4, kWithinValues = 8, kSlackCategory = 16 };
    unsigned m_awaiting = 0;
    std::function<QString(std::uint32_t)> m_typeName;
    JobRunner* m_whatIfJob;  // sorts the what-if latencies for their CDF (the what-if itself is the session's)
    QString m_exportContext;
    std::vector<float> m_whatIfAfter;
    std::vector<SlackBucket> m_buckets;  // what the bucket plot shows (for its export)
    QTabWidget* m_pages;
    // Breakdown page.
    QComboBox* m_stratifyBy;
    QSpinBox* m_quantiles;  // a numeric attribute in this many equal-population strata
    QCheckBox* m_percent;
    QLabel* m_breakdownAa;
    BreakdownPlot* m_breakdown;
    CdfPlot* m_shareCdf;
    // Outliers page.
    QDoubleSpinBox* m_outlierPercent;
    QTableWidget* m_outlierTable;
    QLabel* m_outlierSummary;
    QTableWidget* m_outlierSlackTable;  // each category's slack, outliers against the rest
    QLabel* m_outlierSlackSummary;
    // Scatter and slack studies.
    QComboBox* m_scatterCategory;
    SlackScatter* m_scatter;
    QComboBox* m_slackCategory;
    QComboBox* m_userAttribute;
    QSpinBox* m_slackBuckets;  // equal-population buckets of the slack study
    QComboBox* m_withinAttribute;  // restrict the slack studies to requests with one value of it
    QComboBox* m_withinValue;
    CdfPlot* m_slackCdf;
    QCustomPlot* m_bucketPlot;
    QCustomPlot* m_predictionPlot;  // each user's consecutive slacks (the paper's Fig. 11), with a user attribute only
    std::vector<std::pair<TimeNs, TimeNs>> m_predictionPairs;  // what it shows (for its export)
    QLabel* m_prediction;
    QLabel* m_slackNotice;    // why the slack studies show nothing, instead of them
    QWidget* m_slackPlots;
    // What-if page.
    static constexpr std::size_t kWhatIfTypes = 200;  // segment types offered as what-if targets
    QComboBox* m_whatIfTarget;
    QDoubleSpinBox* m_whatIfPercent;
    QPushButton* m_whatIfRun;
    CdfPlot* m_whatIf;
};

} // namespace tracelight::widgets
