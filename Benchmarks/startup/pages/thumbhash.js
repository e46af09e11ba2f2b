// ThumbHash decoder for the startup benchmark's placeholder page, written
// from the published ThumbHash specification (Evan Wallace, 2023,
// https://evanw.github.io/thumbhash/): a 24-bit header (L DC 6 bits, P and
// Q DC 6 bits each, L scale 5 bits, alpha flag), a 16-bit header (the
// shorter side's L term count 3 bits, P and Q scales 6 bits each,
// landscape flag), an alpha byte when the alpha flag is set, then the AC
// terms in 4 bits each, low nibble first, in the order L, P, Q, alpha,
// each over the triangle cx*ny < nx*(ny-cy) without the DC term. The
// picture is the inverse DCT of those terms at 32 px on its longer side,
// LPQ converted to RGB (P and Q boosted 1.25x, as the reference decoder
// does to make up for quantisation).
'use strict';

function thumbHashBytes(base64) {
  const s = atob(base64);
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}

function thumbHashAspectRatio(hash) {
  const shorter = hash[3] & 7;
  const hasAlpha = (hash[2] & 0x80) !== 0;
  const landscape = (hash[4] & 0x80) !== 0;
  const lx = landscape ? (hasAlpha ? 5 : 7) : shorter;
  const ly = landscape ? shorter : (hasAlpha ? 5 : 7);
  return lx / ly;
}

function thumbHashHeader(hash) {
  const h24 = hash[0] | (hash[1] << 8) | (hash[2] << 16);
  const h16 = hash[3] | (hash[4] << 8);
  const hasAlpha = (h24 >> 23) & 1;
  const landscape = (h16 >> 15) & 1;
  return {
    lDC: (h24 & 63) / 63,
    pDC: ((h24 >> 6) & 63) / 31.5 - 1,
    qDC: ((h24 >> 12) & 63) / 31.5 - 1,
    lScale: ((h24 >> 18) & 31) / 31,
    hasAlpha,
    pScale: ((h16 >> 3) & 63) / 63,
    qScale: ((h16 >> 9) & 63) / 63,
    lx: Math.max(3, landscape ? (hasAlpha ? 5 : 7) : h16 & 7),
    ly: Math.max(3, landscape ? h16 & 7 : (hasAlpha ? 5 : 7)),
    aDC: hasAlpha ? (hash[5] & 15) / 15 : 1,
    aScale: hasAlpha ? (hash[5] >> 4) / 15 : 0,
  };
}

function lpqToRGB(l, p, q) {
  const b = l - (2 / 3) * p;
  const r = (3 * l - b + q) / 2;
  const g = r - q;
  return [r, g, b];
}

// The average colour (0-1 per channel) from the DC terms alone.
function thumbHashAverageRGBA(hash) {
  const h = thumbHashHeader(hash);
  const [r, g, b] = lpqToRGB(h.lDC, h.pDC, h.qDC);
  const c = (v) => Math.max(0, Math.min(1, v));
  return { r: c(r), g: c(g), b: c(b), a: h.aDC };
}

// The placeholder picture: { w, h, rgba } with the longer side 32 px.
function thumbHashToRGBA(hash) {
  const h = thumbHashHeader(hash);
  let index = 0;
  const start = h.hasAlpha ? 6 : 5;
  const channel = (nx, ny, scale) => {
    const ac = [];
    for (let cy = 0; cy < ny; cy++) {
      for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++) {
        const nibble = (hash[start + (index >> 1)] >> ((index & 1) << 2)) & 15;
        index++;
        ac.push((nibble / 7.5 - 1) * scale);
      }
    }
    return ac;
  };
  const lAC = channel(h.lx, h.ly, h.lScale);
  const pAC = channel(3, 3, h.pScale * 1.25);
  const qAC = channel(3, 3, h.qScale * 1.25);
  const aAC = h.hasAlpha ? channel(5, 5, h.aScale) : null;

  const ratio = thumbHashAspectRatio(hash);
  const w = Math.round(ratio > 1 ? 32 : 32 * ratio);
  const ht = Math.round(ratio > 1 ? 32 / ratio : 32);
  const rgba = new Uint8ClampedArray(w * ht * 4);
  const fx = [], fy = [];
  const nx = Math.max(h.lx, h.hasAlpha ? 5 : 3);
  const ny = Math.max(h.ly, h.hasAlpha ? 5 : 3);
  for (let y = 0, i = 0; y < ht; y++) {
    for (let cy = 0; cy < ny; cy++) fy[cy] = Math.cos((Math.PI / ht) * (y + 0.5) * cy);
    for (let x = 0; x < w; x++, i += 4) {
      for (let cx = 0; cx < nx; cx++) fx[cx] = Math.cos((Math.PI / w) * (x + 0.5) * cx);
      let l = h.lDC, p = h.pDC, q = h.qDC, a = h.aDC;
      for (let cy = 0, j = 0; cy < h.ly; cy++) {
        const fy2 = fy[cy] * 2;
        for (let cx = cy ? 0 : 1; cx * h.ly < h.lx * (h.ly - cy); cx++, j++) l += lAC[j] * fx[cx] * fy2;
      }
      for (let cy = 0, j = 0; cy < 3; cy++) {
        const fy2 = fy[cy] * 2;
        for (let cx = cy ? 0 : 1; cx < 3 - cy; cx++, j++) {
          const f = fx[cx] * fy2;
          p += pAC[j] * f;
          q += qAC[j] * f;
        }
      }
      if (aAC) {
        for (let cy = 0, j = 0; cy < 5; cy++) {
          const fy2 = fy[cy] * 2;
          for (let cx = cy ? 0 : 1; cx < 5 - cy; cx++, j++) a += aAC[j] * fx[cx] * fy2;
        }
      }
      const [r, g, b] = lpqToRGB(l, p, q);
      rgba[i] = 255 * Math.min(1, Math.max(0, r));
      rgba[i + 1] = 255 * Math.min(1, Math.max(0, g));
      rgba[i + 2] = 255 * Math.min(1, Math.max(0, b));
      rgba[i + 3] = 255 * Math.min(1, Math.max(0, a));
    }
  }
  return { w, h: ht, rgba };
}
