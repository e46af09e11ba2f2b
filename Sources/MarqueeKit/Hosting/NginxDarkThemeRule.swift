/// The nginx rule that answers `?theme=dark` from the bundle's files.
///
/// The client appends `?theme=dark` to `cover_url` (and to image URLs);
/// a static host cannot run code, so every dark file sits beside its
/// light file as `<name>.dark.<ext>` (`videos/<id>/cover.dark.webp`,
/// `images/<id>/w<width>.dark.jpg`) and this rule, written into the bundle
/// as ``fileName``, rewrites the request to it.
///
/// What the rule does, checked against Debian's nginx 1.22 by
/// `NginxDarkThemeTests`:
///
/// - `?theme=dark` (any letter case, anywhere in the query) on a
///   `.webp`, `.avif`, `.jpg`, `.jpeg` or `.png` request serves the `.dark` sibling,
///   with its own `Content-Type`, `ETag` and `Last-Modified`.
/// - No `theme`, `?theme=light` or any other value serves the light file.
/// - A request that already names a `.dark` file is left alone (the
///   negative lookbehind `(?<!\.dark)`, which nginx's PCRE supports, keeps
///   the rewrite from looping).
/// - When the dark sibling does not exist the light file is served rather
///   than a 404 (`-f` test on `$request_filename`), so a file without a
///   variant degrades gracefully.
/// - The rewrite keeps the query string, and `last` makes nginx look up
///   the location again for the new URI, so the rule works both at
///   `server` level with `root` and inside a `location` with `alias`.
///
/// The rule uses only the rewrite module's `set`, `if` and `rewrite … last`
/// (the uses of `if` that nginx documents as safe inside `location`).
public enum NginxDarkThemeRule {
  /// The file the rule is written to, at the bundle root.
  public static let fileName = "nginx-dark-theme.conf"

  /// The rule's text, ready to `include`: a comment saying where it
  /// applies, then ``directives``.
  public static let text = header + directives

  private static let header = #"""
    # Marquee: answer ?theme=dark with the dark variant of a cover or image.
    #
    # Every cover and image has its dark variant beside it as
    # <name>.dark.<ext> (videos/<id>/cover.dark.webp, images/<id>/w750.dark.jpg).
    # Include this file in the block that serves the bundle:
    #   server   { root /srv/cdn/home;                 include /srv/cdn/home/nginx-dark-theme.conf; }
    #   location /home/ { alias /srv/cdn/home/;        include /srv/cdn/home/nginx-dark-theme.conf; }
    # (inside the location when it uses alias: the file test below needs the
    # location's path). nginx does not inherit these rules into nested
    # locations: with nested ones, include it in each location that serves
    # videos/ and images/, or use `marquee nginx-config`, which does. A request
    # without ?theme=dark, or for a file without a dark sibling, gets the light
    # file. A CDN in front of nginx must keep the query string in its cache key.

    """#

  /// The rule itself, without the comment: the rewrite-module directives
  /// that ``NginxBundleConfig`` places in every location serving covers
  /// and images.
  ///
  /// nginx runs rewrite-module directives (`set`, `if`, `rewrite`) only in
  /// the location a request finally lands in; they are not inherited into
  /// nested locations, so a rule in an outer location with nested ones is
  /// silently skipped.
  public static let directives = #"""
    set $marquee_dark_uri "";
    set $marquee_dark_file "";
    if ($arg_theme ~* "^dark$") {
        set $marquee_dark_uri $uri;
    }
    if ($marquee_dark_uri ~ "^(.+)(?<!\.dark)\.(webp|avif|jpg|jpeg|png)$") {
        set $marquee_dark_uri "$1.dark.$2";
    }
    if ($marquee_dark_uri !~ "\.dark\.[a-z]+$") {
        set $marquee_dark_uri "";
    }
    if ($request_filename ~ "^(.+)\.(webp|avif|jpg|jpeg|png)$") {
        set $marquee_dark_file "$1.dark.$2";
    }
    if (!-f $marquee_dark_file) {
        set $marquee_dark_uri "";
    }
    if ($marquee_dark_uri) {
        rewrite ^ $marquee_dark_uri last;
    }

    """#
}
