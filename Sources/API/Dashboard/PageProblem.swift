/// Why a page's view model cannot be loaded from what the query asks (an unknown view, a link
/// the project does not have): the page answers 422 with this title and text.
struct PageProblem: Error, Equatable {
    let title: String
    let text: String
}
