import Foundation
import Testing

@testable import MarqueeKit

@Suite("marquee init: ids and names from file names")
struct BannerIDSluggerTests {
  @Test("a slug is lower-case ASCII a-z, 0-9, '_' and '-', accents and symbols folded", arguments: [
    ("Summer Sale!", "summer-sale"),
    ("IMG_0042", "img_0042"),
    ("Été 2024 — Promo", "ete-2024-promo"),
    ("Straße Ærø Łódź", "strasse-aero-lodz"),
    ("ﬁnal Ｃut", "final-cut"),
    ("--hello--", "hello"),
    ("__a__b__", "a__b"),
    ("a   b", "a-b"),
    ("A.B.C", "a-b-c"),
    ("日本", ""),
    ("🎉", ""),
  ])
  func slug(_ text: String, _ expected: String) {
    #expect(BannerIDSlugger.slug(text) == expected)
  }

  @Test("file names that slug alike get -2, -3 in the order given; the extension is dropped")
  func unique() {
    var slugger = BannerIDSlugger()
    #expect(slugger.uniqueID(forFileName: "Summer Sale.png", fallback: "image") == "summer-sale")
    #expect(slugger.uniqueID(forFileName: "summer-sale.jpg", fallback: "image") == "summer-sale-2")
    #expect(slugger.uniqueID(forFileName: "SUMMER SALE.gif", fallback: "image") == "summer-sale-3")
    #expect(slugger.uniqueID(forFileName: "summer-sale-2.webp", fallback: "image") == "summer-sale-2-2")
    #expect(slugger.uniqueID(forFileName: "clip.final.mp4", fallback: "video") == "clip-final")
    // Nothing of the name survives: the fallback (the banner's type).
    #expect(slugger.uniqueID(forFileName: "日本.png", fallback: "image") == "image")
    #expect(slugger.uniqueID(forFileName: "中国.png", fallback: "image") == "image-2")
  }

  @Test("ids stay within the id length; a suffix replaces the end, never overflows it")
  func length() {
    var slugger = BannerIDSlugger()
    let long = String(repeating: "a", count: 100) + ".png"
    let first = slugger.uniqueID(forFileName: long, fallback: "image")
    let second = slugger.uniqueID(forFileName: long, fallback: "image")
    #expect(first == String(repeating: "a", count: BannerIDSlugger.maxLength))
    #expect(second == String(repeating: "a", count: BannerIDSlugger.maxLength - 2) + "-2")
  }

  @Test("every id the slugger gives passes the job reader's id rule")
  func readerAcceptsEveryID() {
    let names = ["Summer Sale.png", "-.png", "_x_.mp4", "\u{202E}gpj.exe", "tab\there.mov", "ÅÄÖ.jpg", "1.gif", "1.gif",
                 String(repeating: "é", count: 80) + ".webp", "...", "a b c d e f.heic", "Ω.png", "🎉🎉.mp4"]
    var slugger = BannerIDSlugger()
    var seen: Set<String> = []
    for name in names {
      let id = slugger.uniqueID(forFileName: name, fallback: "image")
      #expect(JobDocumentValidator.idProblem(id) == nil, "\(name) → \(id)")
      #expect(seen.insert(id).inserted, "\(id) given twice")
    }
  }

  @Test("the default job name is the media folder's name as a slug, else 'banners'")
  func defaultName() {
    #expect(JobTemplate.defaultName(for: URL(fileURLWithPath: "/srv/media/Spring Promo")) == "spring-promo")
    #expect(JobTemplate.defaultName(for: URL(fileURLWithPath: "/srv/media/Spring Promo/")) == "spring-promo")
    #expect(JobTemplate.defaultName(for: URL(fileURLWithPath: "/srv/キャンペーン")) == JobTemplate.fallbackName)
    #expect(JobTemplate.defaultName(for: URL(fileURLWithPath: "/")) == JobTemplate.fallbackName)
    #expect(JobDocumentValidator.nameProblem(JobTemplate.fallbackName) == nil)
  }
}
