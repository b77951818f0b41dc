//! Diagnostics as the protocol has them: the same code, severity, message,
//! help and range as `fsmc check`. Each is linked to the code's section of
//! docs/diagnostics.md (the page `fsmc explain CODE` prints) when the client
//! says where that page is published: fsmc itself has no URL to give.

use super::documents::Document;
use fsm_grammar::{Code, Diagnostic, Severity};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location,
    NumberOrString, Uri,
};

/// Where a copy of docs/diagnostics.md is published, from the client's
/// `initializationOptions.diagnosticsUrl`. Each code has a section there
/// whose anchor is the code's name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocsPage(Option<String>);

impl DocsPage {
    /// The page named by `initializationOptions` (`{"diagnosticsUrl": "https://..."}`),
    /// or none. A value that is not an absolute URL without a fragment is
    /// refused with the reason, and diagnostics then carry no link.
    ///
    /// # Errors
    ///
    /// What is wrong with `diagnosticsUrl`, in one message.
    pub fn from_options(options: Option<&serde_json::Value>) -> Result<DocsPage, String> {
        let Some(value) = options.and_then(|o| o.get("diagnosticsUrl")) else {
            return Ok(DocsPage(None));
        };
        let problem =
            |why: &str| format!("`initializationOptions.diagnosticsUrl` {why}; diagnostics carry no link");
        let url = value
            .as_str()
            .ok_or_else(|| problem(&format!("must be a string, not `{value}`")))?;
        let parsed: Uri = url
            .parse()
            .map_err(|_| problem(&format!("`{url}` is not a URL")))?;
        if parsed.scheme().is_none() {
            return Err(problem(&format!("`{url}` is not an absolute URL")));
        }
        if parsed.fragment().is_some() {
            return Err(problem(&format!(
                "`{url}` has a fragment; give the page, and each code's anchor is added"
            )));
        }
        Ok(DocsPage(Some(url.to_string())))
    }

    /// The link to `code`'s section of the page (its heading is the code).
    pub fn url(&self, code: Code) -> Option<String> {
        self.0.as_ref().map(|page| format!("{page}#{}", code.name()))
    }
}

/// `diagnostic` in the protocol's terms. The help line follows the message,
/// as in `fsmc check`'s reports; secondary labels are related information.
/// The code links to its section of `docs` when that page is known.
pub fn to_lsp(
    document: &Document,
    uri: &Uri,
    diagnostic: &Diagnostic,
    docs: &DocsPage,
) -> lsp_types::Diagnostic {
    let related = diagnostic
        .secondary
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), document.range(label.span)),
            message: label.message.clone(),
        })
        .collect::<Vec<_>>();
    let tags = matches!(diagnostic.code, Code::UnusedDeclaration | Code::UnreachableState)
        .then(|| vec![DiagnosticTag::UNNECESSARY]);
    lsp_types::Diagnostic {
        range: document.range(diagnostic.span),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(diagnostic.code.name().to_string())),
        code_description: docs
            .url(diagnostic.code)
            .and_then(|url| url.parse().ok())
            .map(|href| CodeDescription { href }),
        source: Some("fsmc".to_string()),
        message: format!("{}\nhelp: {}", diagnostic.message, diagnostic.help),
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_code_links_to_its_section_of_the_configured_page() {
        let page = "https://example.org/fsmc/docs/diagnostics.md";
        let docs = DocsPage::from_options(Some(&json!({ "diagnosticsUrl": page }))).unwrap();
        let text = include_str!("../../../docs/diagnostics.md");
        for &code in Code::ALL {
            let url = docs.url(code).unwrap();
            assert!(url.parse::<Uri>().is_ok(), "{url}");
            assert_eq!(url, format!("{page}#{}", code.name()));
            assert!(
                text.contains(&format!("\n## {}\n", code.name())),
                "no section for {code}"
            );
        }
    }

    #[test]
    fn no_page_means_no_link_and_a_bad_one_is_refused() {
        for options in [
            None,
            Some(json!(null)),
            Some(json!({})),
            Some(json!({ "other": 1 })),
        ] {
            let docs = DocsPage::from_options(options.as_ref()).unwrap();
            assert_eq!(docs.url(Code::UnknownState), None);
        }
        let refused = |value: serde_json::Value| {
            DocsPage::from_options(Some(&json!({ "diagnosticsUrl": value }))).unwrap_err()
        };
        assert!(
            refused(json!(3)).contains("must be a string, not `3`"),
            "{}",
            refused(json!(3))
        );
        assert!(
            refused(json!("not a url")).contains("`not a url` is not"),
            "{}",
            refused(json!("not a url"))
        );
        assert!(refused(json!("docs/diagnostics.md")).contains("not an absolute URL"));
        assert!(refused(json!("https://example.org/d.md#top")).contains("has a fragment"));
    }
}
