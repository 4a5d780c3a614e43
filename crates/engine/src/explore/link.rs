//! Which view of the study a link opens, and on what: `explore=VIEW,STUDY,A,B` (the view's
//! name, the study or task — empty for the file's first —, and the parameters a slice or a
//! contour is drawn over), each item escaped as the link's lists are.

use serde::{Deserialize, Serialize};

/// The views of a study, in the order the page lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StudyView {
    /// The trials table.
    Trials,
    /// Optimization history with the best so far.
    History,
    /// The trials' intermediate values.
    Intermediate,
    /// Hyperparameter importance.
    Importance,
    /// One parameter's slice with the surrogate's mean ± 2 sd.
    Slice,
    /// The surrogate's mean over two parameters, with the trials.
    Contour,
    /// Parallel coordinates.
    Parallel,
    /// The empirical distribution function of the values.
    Edf,
    /// The Pareto front (several objectives).
    Pareto,
}

/// Every view, in the page's order.
pub const STUDY_VIEWS: [StudyView; 9] = [
    StudyView::Trials,
    StudyView::History,
    StudyView::Intermediate,
    StudyView::Importance,
    StudyView::Slice,
    StudyView::Contour,
    StudyView::Parallel,
    StudyView::Edf,
    StudyView::Pareto,
];

impl StudyView {
    /// Its name in links and file names (`VIEW.csv`, except the trials table's `trials.csv`).
    pub fn as_str(self) -> &'static str {
        match self {
            StudyView::Trials => "trials",
            StudyView::History => "history",
            StudyView::Intermediate => "intermediate",
            StudyView::Importance => "importance",
            StudyView::Slice => "slice",
            StudyView::Contour => "contour",
            StudyView::Parallel => "parallel",
            StudyView::Edf => "edf",
            StudyView::Pareto => "pareto",
        }
    }

    /// Its title on the page.
    pub fn title(self) -> &'static str {
        match self {
            StudyView::Trials => "Trials",
            StudyView::History => "History",
            StudyView::Intermediate => "Intermediate values",
            StudyView::Importance => "Importance",
            StudyView::Slice => "Slice",
            StudyView::Contour => "Contour",
            StudyView::Parallel => "Parallel coordinates",
            StudyView::Edf => "EDF",
            StudyView::Pareto => "Pareto front",
        }
    }

    /// The view of a link's name.
    pub fn parse(name: &str) -> Option<Self> {
        STUDY_VIEWS.into_iter().find(|v| v.as_str() == name)
    }

    /// The file of this view that `hpo explore` writes and the page downloads.
    pub fn file(self) -> String {
        format!("{}.csv", self.as_str())
    }
}

/// The study view a link opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyViewSpec {
    /// The view.
    pub view: StudyView,
    /// The study (or the table's task); empty for the first.
    pub study: String,
    /// The slice's parameter, or the contour's two.
    pub params: Vec<String>,
}

impl StudyViewSpec {
    /// The link's items: view, study, parameters.
    pub fn items(&self) -> Vec<String> {
        [self.view.as_str().to_string(), self.study.clone()].into_iter().chain(self.params.iter().cloned()).collect()
    }

    /// The spec of a link's items, `None` when the view is unknown or there are more than two
    /// parameters.
    pub fn from_items(items: &[String]) -> Option<Self> {
        let view = StudyView::parse(items.first()?)?;
        let params: Vec<String> = items.iter().skip(2).cloned().collect();
        (params.len() <= 2).then(|| StudyViewSpec { view, study: items.get(1).cloned().unwrap_or_default(), params })
    }
}
