import MarqueeKit

/// The text of `--help`, `--version` and usage errors.
enum HelpText {
  /// `marquee 0.2.0`, then the C libraries' versions as the loaded
  /// libraries report them.
  static var version: String {
    (["marquee \(ItemFingerprint.marqueeVersion)"] + LinkedLibraries.current.lines).joined(separator: "\n")
  }

  static let exitCodes = """
    Exit codes:
      0  every item was built (or reused) and the bundle published
      1  some items failed (the previous bundle is kept unless --allow-partial),
         the bundle fails verification, or it is over its size budget
         (max_bundle_mb, max_item_mb; the previous bundle is kept)
      2  usage error, or the job file is invalid
      3  the bundle is locked by another run (use --wait to wait for it)
      4  I/O error: the output cannot be written (disk full, permissions)
    """

  /// `build`'s exit codes: `exitCodes` with what they mean for `--check`.
  static let buildExitCodes = """
    Exit codes:
      0  every item was built (or reused) and the bundle published;
         --check: a build would change nothing
      1  some items failed (the previous bundle is kept unless --allow-partial),
         the bundle fails verification, or it is over its size budget
         (max_bundle_mb, max_item_mb; the previous bundle is kept);
         --check: a build would change the bundle or the store, fail, or be
         over the size budget
      2  usage error, or the job file is invalid
      3  the bundle is locked by another run (use --wait to wait for it)
      4  I/O error: the output cannot be written (disk full, permissions)
    """

  static let main = """
    marquee: turns a batch job file into a carousel-ready banner bundle
    (H.264/AAC HLS + MP4 with fixed keyframes, covers, dark variants,
    WebP/JPEG images and banners.json).

    Usage:
      marquee init <media-folder> [--name NAME] [--out FILE]
      marquee build <job.json> [--out DIR] [--jobs N] [--allow-partial] [--wait]
                    [--shard i/n] [--rebuild] [--quiet] [--verbose] [--log-format text|plain|json]
      marquee build <job.json> --check [--out DIR] [--jobs N] [--quiet] [--log-format …]
      marquee merge <job.json> --out DIR [--allow-partial] [--wait] [--log-format …]
      marquee verify <bundle> [--quiet] [--log-format …]
      marquee validate <job.json> [--log-format …]
      marquee preview <bundle> [--out DIR]
      marquee nginx-config <bundle> [--prefix /home/] [--cors ORIGIN] [--manifest-max-age S]
      marquee demo-sources <folder>
      marquee --help | <command> --help | --version

    Commands:
      init           Print a job file listing every video and image of a folder
                     (types from the content, ids from the file names).
      build          Build the job into <out>/<job name>/ (default out: ./Output);
                     unchanged items are reused, the bundle is verified and
                     switched into place atomically. With --check: say whether
                     a build would change anything, writing nothing (for CI).
      merge          Verify and publish a bundle whose items `build --shard` built.
      verify         Re-check a built bundle from its files (playlists, segments,
                     covers, images, banners.json); lists every violation.
      validate       Check a job file without building: schema, sources, limits.
      preview        Write preview.html and a contact-sheet PNG beside a built bundle
                     (<bundle>.preview/; covers and dark covers, image widths, videos).
      nginx-config   Print the nginx location block that serves a bundle (types,
                     gzip, Cache-Control, ranges, ?theme=dark, nothing else).
      demo-sources   Generate the built-in demo's source media into <folder>.

    Output: live progress on a terminal, plain lines otherwise, or one JSON
    object per line with --log-format json. NO_COLOR turns colours off.

    \(buildExitCodes)

    """

  static let build = """
    Usage: marquee build <job.json> [--out DIR] [--jobs N] [--allow-partial] [--wait]
                         [--shard i/n] [--rebuild] [--quiet] [--verbose] [--log-format text|plain|json]
           marquee build <job.json> --check [--out DIR] [--jobs N] [--quiet] [--verbose]
                         [--log-format text|plain|json]

    Builds every banner of the job into <out>/<name>/. Each item's outputs are
    stored by a hash of its source and settings (<out>/.marquee/store), so an
    unchanged item is reused, not encoded again, and keeps its URLs
    (videos|images/<id>-<hash>/…). The new bundle is assembled in a staging
    folder, verified, and swapped with the old one in one rename: a reader sees
    the old bundle or the new one, never a mix, and a killed run leaves the old
    bundle whole (the next run removes its leftovers).

    Options:
      -o, --out DIR         Output root (default: ./Output). Nothing is written outside it.
      -j, --jobs N          CPU budget (default: number of cores): N items in flight
                            and at most N + 1 threads computing at once (one spare
                            keeps N cores busy); --jobs 1 uses exactly one core.
                            The output is the same for any N.
      --allow-partial       Publish the good items when some fail (default: keep the
                            old bundle; the good items stay stored for the rerun).
      --wait                When another run holds the bundle, wait for it instead of
                            exiting with code 3.
      --shard i/n           Build only items k with k mod n = i (0-based) into the
                            store of --out, publish nothing; `marquee merge` publishes.
      --rebuild             Encode every item again instead of reusing stored outputs
                            (after changing Marquee's code without a new version).
      --check               Write nothing: hash the sources as a build would and
                            compare with the store and the published bundle. One
                            line per item (ok, would build: <why>, would publish:
                            <why>, would remove), then what else would change
                            (banners.json, the size budget) and a summary. Exit 0
                            when a build would change nothing, 1 when it would.
                            Takes no lock and encodes nothing; not with --shard,
                            --rebuild, --wait or --allow-partial.
      -q, --quiet           Print warnings and errors only (with --check: what would
                            change).
      -v, --verbose         Also print FFmpeg's warnings (JSON lines with stage "ffmpeg"
                            under --log-format json) and debug events.
      --log-format FORMAT   text (default: live progress on a terminal, plain lines
                            otherwise), plain, or json (one object per line on stdout:
                            time, level, item, stage, event, duration, error,
                            message, …; --check: stage "check", events ok,
                            would_build, would_publish, would_remove, would_change,
                            budget, summary).

    \(buildExitCodes)

    """

  static let merge = """
    Usage: marquee merge <job.json> --out DIR [--allow-partial] [--wait] [--quiet]
                         [--log-format text|plain|json]

    Publishes a bundle whose items were built by `marquee build <job> --out DIR
    --shard i/n` runs (on this machine or others sharing DIR): encodes nothing,
    takes every item from DIR's store, verifies the bundle and switches it into
    place. An item no shard built counts as failed. The result is byte for byte
    the bundle a single `marquee build` makes.

    Options:
      -o, --out DIR         The output root the shards built into (required).
      --allow-partial       Publish when some items are missing or failed.
      --wait                Wait for another run holding the bundle (else exit 3).
      -q, --quiet, -v, --verbose, --log-format FORMAT   as for build.

    \(exitCodes)

    """

  static let verify = """
    Usage: marquee verify <bundle> [--quiet] [--log-format text|plain|json]

    Re-checks a built bundle on its own, from its files: banners.json keeps the
    client contract; every referenced file exists; master playlists declare
    BANDWIDTH, AVERAGE-BANDWIDTH, CODECS, RESOLUTION and FRAME-RATE with one
    aspect ratio; media playlists are VOD with an end tag; every segment decodes
    on its own with its init section, every picture and audio frame without
    errors (strict error recognition), and starts with a keyframe, at the same
    times in every rendition; durations equal what `url` plays (sum of
    #EXTINF, or the MP4's); MP4s are H.264 yuv420p with moov before mdat;
    covers decode at the video's size and are not black (nothing lit); images
    decode at their stated size with a dark variant beside them; dark files
    are judged by the item's dark_policy ("same": byte-identical to the light
    ones; "designer": glare only, as a warning); animations stay within 20
    frames and 10 MB decoded. Prints each violation as
    `<item id>: <file>: <problem>`.

    Exit codes: 0 the bundle verifies; 1 violations found; 2 usage error or
    no such bundle folder.

    """

  static let validate = """
    Usage: marquee validate <job.json> [--log-format text|plain|json]

    Checks a job file without building: the schema (Pipelines/job.schema.json
    describes it for editors), every source exists, is readable and is a video
    or image Marquee accepts, within the job's limits (max_file_size_mb,
    max_pixels, max_duration); so is every poster (cover.image) and designer's
    dark picture (dark.image), as a JPEG, PNG, WebP or HEIC still. Each error
    names the JSON path, e.g. `banners[2].source`.

    Exit codes: 0 the job is valid; 2 usage error or any problem in the job.

    """

  static let preview = """
    Usage: marquee preview <bundle> [--out DIR]

    Writes preview.html and preview-contact-sheet.png into DIR (default
    <bundle>.preview, beside the bundle; never inside it, so a sync of the
    bundle never uploads them): every banner with its cover and dark cover
    side by side, the image widths and each video (its HLS playlist where the
    browser plays HLS, the MP4 elsewhere), so a content person looks instead
    of reads. The page links to the bundle's files by relative paths: open it
    from disk, or serve DIR beside the bundle.

    Options:
      -o, --out DIR         Where to write (default: <bundle>.preview). Must not be
                            the bundle or inside it.

    Exit codes: 0 written; 2 usage error, or DIR is inside the bundle; 4 the
    bundle cannot be read or DIR written.

    """

  static let nginxConfig = """
    Usage: marquee nginx-config <bundle> [--prefix /home/] [--cors ORIGIN]
                                [--manifest-max-age SECONDS]

    Prints an nginx configuration to include inside a server {} block that
    serves the bundle under the prefix (default /<bundle folder name>/):
      - .m3u8 application/vnd.apple.mpegurl, .m4s video/iso.segment, .mp4
        video/mp4, .webp image/webp, .jpg image/jpeg, banners.json
        application/json, whatever the server's mime.types says;
      - playlists and banners.json gzip-encoded (Apple HLS authoring spec
        10.1), also through a CDN, with Vary: Accept-Encoding;
      - videos/ and images/ (named by a hash of their content) with
        Cache-Control: public, max-age=31536000, immutable; banners.json with
        public, max-age=SECONDS, must-revalidate (ETag and Last-Modified);
      - byte ranges; ?theme=dark on a cover or image serves its .dark sibling
        (the rule of the bundle's nginx-dark-theme.conf, placed in each
        location that serves them);
      - nothing else of the bundle (404), and never a .marquee path.
    The bundle's path is written resolved, so keep it where it is (each
    publish replaces the folder in place). nginx -t checks the result.

    Options:
      --prefix PATH              URL path, / first and last (default /<name>/).
      --cors ORIGIN              Send Access-Control-Allow-Origin: ORIGIN (an origin
                                 such as https://app.example.com, or *).
      --manifest-max-age SECONDS banners.json's max-age (default 60).

    Example:
      marquee nginx-config /srv/cdn/home > /etc/nginx/snippets/marquee-home.conf
      # in the server {} block: include snippets/marquee-home.conf;
      nginx -t && nginx -s reload

    Exit codes: 0 printed; 2 usage error, no bundle at the path, or a prefix,
    origin or max-age that is not valid.

    """

  static let initJob = """
    Usage: marquee init <media-folder> [--name NAME] [--out FILE]

    Prints a job file that lists every video and image of <media-folder> (its
    own files, sorted by name; not its subfolders), valid as printed for
    `marquee validate` and `marquee build`:
      - each banner's type comes from the file's content, never its extension
        (a .jpg that holds an MP4 is a video); an animated GIF of more frames
        than an animated image keeps (20) is listed as a video, which keeps
        every frame;
      - ids come from the file names: lower-case a-z, 0-9, '_' and '-'
        ("Summer Sale.png" is summer-sale), made unique with -2, -3, ...;
      - every setting is written out with its default, and each video with
        "autoplay": true, "muted": true and "cover": "auto".
    A file that cannot be a banner (not a video or image Marquee accepts, or
    damaged, empty, over a default limit) is left out, and so are hidden
    files, symbolic links (never followed), subfolders and other kinds of
    file: each gets a line `note: <file>: skipped: <reason>` on stderr.
    stdout carries the job and nothing else.

    Sources are written relative to the folder the job file is saved in,
    since a job reads its sources only inside its own folder:
      - printed, the job is for the current directory: save it there
        (marquee init media > job.json); <media-folder> must be the current
        directory or inside it;
      - with --out FILE, the job is for FILE's folder, which must be
        <media-folder> or a folder above it.

    Options:
      --name NAME           The job's name, the bundle folder: 1 to 64 of a-z,
                            0-9, '_' and '-' (default: the media folder's name
                            in that form, e.g. spring-promo).
      -o, --out FILE        Write the job to FILE instead of printing it. An
                            existing FILE is never overwritten: init refuses
                            and writes nothing. The file appears whole or not
                            at all (written beside it, then linked into place).

    Exit codes: 0 printed or written; 2 usage error, no such folder, no video
    or image in it, the folder outside the job file's folder, an invalid
    --name, or FILE exists; 4 FILE cannot be written.

    """

  static let demoSources = """
    Usage: marquee demo-sources <folder>

    Writes the demo's sources, generated with libavfilter's test sources:
    a 16:9 clip with audio, a portrait phone clip with a 90° rotation in its
    display matrix, a photo-like JPEG and a product-on-white PNG.

    Exit codes: 0 written; 2 usage error; 4 the folder cannot be written.

    """

  /// The help for a command name, or the main help.
  static func topic(_ name: String?) -> String {
    switch name {
    case "build": build
    case "merge": merge
    case "verify": verify
    case "validate": validate
    case "demo-sources": demoSources
    case "preview": preview
    case "nginx-config": nginxConfig
    case "init": initJob
    default: main
    }
  }
}
