//! The methods of a `Texture2D<T>` parameter in a kernel: `fetch(x, y)` reads texel
//! (x, y) under the texture's address mode, `width()` and `height()` its size. Coordinates
//! are `i32`, as CUDA's integer texture coordinates are, so that `x - 1` at the left edge
//! is a coordinate the address mode resolves; sizes are `usize`, as the host's
//! `Texture2D::width()` (docs/textures.md; `warpspeed::kernel::TextureFetch` documents
//! `fetch`).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexMethod {
    /// `tex.fetch(x: i32, y: i32) -> T`.
    Fetch,
    /// `tex.width() -> usize`.
    Width,
    /// `tex.height() -> usize`.
    Height,
}

impl TexMethod {
    pub fn from_name(name: &str) -> Option<TexMethod> {
        Some(match name {
            "fetch" => TexMethod::Fetch,
            "width" => TexMethod::Width,
            "height" => TexMethod::Height,
            _ => return None,
        })
    }

    /// How many arguments the method takes (each an `i32`).
    pub fn arity(self) -> usize {
        match self {
            TexMethod::Fetch => 2,
            TexMethod::Width | TexMethod::Height => 0,
        }
    }

    pub fn signature(self) -> &'static str {
        match self {
            TexMethod::Fetch => "fetch(x: i32, y: i32) -> T",
            TexMethod::Width => "width() -> usize",
            TexMethod::Height => "height() -> usize",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TexMethod;
    use quote::ToTokens;

    /// `warpspeed::kernel::TextureFetch::fetch` (core/src/kernel/texture.rs), what rustdoc and
    /// the editor show, has the types the macro gives `fetch`.
    #[test]
    fn documented_fetch_matches() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/src/kernel/texture.rs");
        let file = syn::parse_file(&std::fs::read_to_string(path).expect("readable"))
            .expect("core/src/kernel/texture.rs parses");
        let fetch = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Trait(t) => t.items.iter().find_map(|i| match i {
                    syn::TraitItem::Fn(f) if f.sig.ident == "fetch" => Some(f.sig.clone()),
                    _ => None,
                }),
                _ => None,
            })
            .expect("TextureFetch::fetch");
        let text = |t: &dyn ToTokens| t.to_token_stream().to_string().replace(' ', "");
        let params: Vec<String> = fetch.inputs.iter().map(|a| text(a)).collect();
        assert_eq!(params, ["&self", "x:i32", "y:i32"]);
        assert_eq!(text(&fetch.output), "->T");
        assert_eq!(TexMethod::Fetch.arity(), 2);
        assert_eq!(TexMethod::Fetch.signature(), "fetch(x: i32, y: i32) -> T");
    }
}
