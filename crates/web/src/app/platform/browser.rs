//! Thin wrappers over browser APIs: downloads, the URL, fetch, files, time, an element's size.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

fn window() -> web_sys::Window {
    web_sys::window().expect("running in a window")
}

/// Milliseconds since page load.
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

fn download_url(url: &str, filename: &str) -> Result<(), JsValue> {
    let doc = window().document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(url);
    a.set_download(filename);
    doc.body().ok_or("no body")?.append_child(&a)?;
    a.click();
    a.remove();
    Ok(())
}

/// Offers `text` as a file download.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let r = download_url(&url, filename);
    web_sys::Url::revoke_object_url(&url)?;
    r
}

/// The chart's markup with the page's text styles written into each text element: charts are
/// styled by the CSS type scale, and an exported file has no style sheet.
fn svg_markup(id: &str) -> Result<String, JsValue> {
    let el = window().document().ok_or("no document")?.get_element_by_id(id).ok_or("chart not found")?;
    let copy: web_sys::Element = el.clone_node_with_deep(true)?.dyn_into()?;
    let (texts, copies) = (el.query_selector_all("text")?, copy.query_selector_all("text")?);
    for i in 0..texts.length() {
        let (Some(text), Some(target)) = (texts.item(i), copies.item(i)) else { continue };
        let (text, target): (web_sys::Element, web_sys::Element) = (text.dyn_into()?, target.dyn_into()?);
        if let Some(style) = window().get_computed_style(&text)? {
            for property in ["font-size", "font-weight", "font-family", "fill"] {
                let value = style.get_property_value(property)?;
                if !value.is_empty() {
                    target.set_attribute(property, &value)?;
                }
            }
        }
    }
    web_sys::XmlSerializer::new()?.serialize_to_string(&copy)
}

/// Marks the page's root element with the attribute `data-{name}`: a moment the page has passed
/// (e.g. `kept-looked`), which the end-to-end tests wait for rather than for a while.
pub fn mark_root(name: &str) {
    if let Some(root) = window().document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute(&format!("data-{name}"), "");
    }
}

/// A CSS custom property of the page (e.g. the chart type scale's `--chart-tick`), trimmed.
pub fn css_variable(name: &str) -> Option<String> {
    let root = window().document()?.document_element()?;
    let value = window().get_computed_style(&root).ok()??.get_property_value(name).ok()?;
    let value = value.trim().to_string();
    (!value.is_empty()).then_some(value)
}

/// Downloads the chart with DOM id `id` as SVG.
pub fn download_svg(id: &str, filename: &str) -> Result<(), JsValue> {
    download_text(filename, "image/svg+xml", &svg_markup(id)?)
}

/// Downloads the chart with DOM id `id` as a PNG at twice its nominal size.
pub fn download_png(id: &str, filename: &str) -> Result<(), JsValue> {
    let markup = svg_markup(id)?;
    // Twice the drawing's own size (charts are laid out at the width they are shown at).
    let view_box: Vec<f64> = window()
        .document()
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.get_attribute("viewBox"))
        .map(|v| v.split_whitespace().filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    let (w, h) = match view_box[..] {
        [_, _, w, h] if w > 0.0 && h > 0.0 => (2.0 * w, 2.0 * h),
        _ => (1280.0, 660.0),
    };
    let data_url = format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(&markup)));
    let img = web_sys::HtmlImageElement::new()?;
    let filename = filename.to_string();
    let img2 = img.clone();
    let onload = Closure::once_into_js(move || {
        let draw = || -> Result<(), JsValue> {
            let doc = window().document().ok_or("no document")?;
            let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
            canvas.set_width(w as u32);
            canvas.set_height(h as u32);
            let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d")?.ok_or("no 2d context")?.dyn_into()?;
            ctx.draw_image_with_html_image_element_and_dw_and_dh(&img2, 0.0, 0.0, w, h)?;
            download_url(&canvas.to_data_url_with_type("image/png")?, &filename)
        };
        if let Err(e) = draw() {
            web_sys::console::error_2(&"PNG export failed".into(), &e);
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&data_url);
    Ok(())
}

/// The current query string without `?`.
pub fn current_query() -> String {
    hpo_engine::permalink::plain_query(&window().location().search().unwrap_or_default())
}

/// Replaces the URL's query without reloading or adding a history entry.
pub fn replace_query(query: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("?{query}")));
    }
}

/// The full link for a query.
pub fn link_for(query: &str) -> String {
    let loc = window().location();
    format!("{}{}?{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default(), query)
}

/// Copies text to the clipboard (best effort: may be refused outside a user gesture).
pub fn copy_to_clipboard(text: &str) {
    let _ = window().navigator().clipboard().write_text(text);
}

/// Number of logical cores the browser reports (at least 1).
pub fn hardware_concurrency() -> usize {
    (window().navigator().hardware_concurrency() as usize).max(1)
}

/// Fetches a URL's bytes; an error is a sentence saying what happened and what to do, never
/// the browser's exception (a stack of wasm frames means nothing to a user).
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let unreachable = || {
        let online = window().navigator().on_line();
        let why = if online { "the server did not answer or refused this page's request" } else { "this browser is offline" };
        format!("Could not download {url}: {why}. Check the connection and choose the data again.")
    };
    let resp = JsFuture::from(window().fetch_with_str(url)).await.map_err(|_| unreachable())?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| unreachable())?;
    if !resp.ok() {
        return Err(format!("Could not download {url}: the server answered HTTP {} ({}).", resp.status(), resp.status_text()));
    }
    let read = resp.array_buffer().map_err(|_| unreachable())?;
    let buf = JsFuture::from(read).await.map_err(|_| format!("The download of {url} broke off before its end. Choose the data again."))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Reads a user-chosen file's bytes.
pub async fn file_bytes(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("Could not read {}: the browser refused to read the file. Choose it again.", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Lets the browser paint before a long synchronous step (e.g. parsing a big table).
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 16);
    });
    let _ = JsFuture::from(promise).await;
}

/// SHA-256 of bytes as lower-case hex, computed by the browser off the main thread.
pub async fn sha256_hex(bytes: &[u8]) -> Result<String, String> {
    let subtle = window().crypto().map_err(|e| format!("{e:?}"))?.subtle();
    let promise = subtle.digest_with_str_and_u8_array("SHA-256", bytes).map_err(|e| format!("{e:?}"))?;
    let digest = JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&digest).to_vec().iter().map(|b| format!("{b:02x}")).collect())
}

/// Opens this page with `query` (a full navigation: a lesson and an experiment are different
/// pages of the same app).
pub fn open_query(query: &str) {
    let _ = window().location().set_search(query);
}

/// The element with `id`, if present (for focus and scrolling).
pub fn element_by_id(id: &str) -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into().ok()
}

/// What a failed export says: the browser's reason in one plain line (no exception dump).
pub fn export_failed(e: &JsValue) -> String {
    let reason = e
        .dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "the browser refused it".into());
    format!("The export did not complete: {reason}. Try again, or use another format.")
}

/// Calls `measure` with `node`'s element once it is in the page, then whenever its size
/// changes (a `ResizeObserver`); stops watching when the owner is cleaned up.
pub fn watch_size<E>(node: leptos::prelude::NodeRef<E>, measure: impl Fn(&web_sys::Element) + Clone + 'static)
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    let observer = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn FnMut(js_sys::Array)>)>);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let el: web_sys::Element = el.unchecked_into();
        measure(&el);
        let (target, measure) = (el.clone(), measure.clone());
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| measure(&target));
        if let Ok(o) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            o.observe(&el);
            observer.set_value(Some((o, callback)));
        }
    });
    on_cleanup(move || {
        observer.with_value(|o| {
            if let Some((o, _)) = o {
                o.disconnect();
            }
        })
    });
}
