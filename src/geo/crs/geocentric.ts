/**
 * The steps of a datum shift as PROJ runs them (its `cart` and `helmert` operations): geodetic lon/lat on one
 * ellipsoid to Earth-centred X/Y/Z, a Helmert transformation in that space, and back onto another ellipsoid.
 * Written here, not left to proj4, so that each transformation PROJ picks runs with PROJ's own formulas and sign
 * conventions (proj4's `+towgs84` reads every rotation as position-vector).
 */

/** [semi-major axis in metres, inverse flattening; 0 for a sphere]. */
export type Ellipsoid = [number, number];

export interface HelmertParameters {
  x: number;
  y: number;
  z: number;
  /** Rotations in arc-seconds. */
  rx: number;
  ry: number;
  rz: number;
  /** Scale difference in parts per million. */
  s: number;
}

const RAD = Math.PI / 180;
const ARCSEC = RAD / 3600;

function eccentricity2(e: Ellipsoid): number {
  const f = e[1] === 0 ? 0 : 1 / e[1];
  return f * (2 - f);
}

/** Geodetic (degrees, height 0) to geocentric X/Y/Z, into `out`. */
export function toGeocentric(lon: number, lat: number, e: Ellipsoid, out: Float64Array): void {
  const a = e[0];
  const es = eccentricity2(e);
  const phi = lat * RAD;
  const lam = lon * RAD;
  const sinPhi = Math.sin(phi);
  const cosPhi = Math.cos(phi);
  const n = a / Math.sqrt(1 - es * sinPhi * sinPhi);
  out[0] = n * cosPhi * Math.cos(lam);
  out[1] = n * cosPhi * Math.sin(lam);
  out[2] = n * (1 - es) * sinPhi;
}

/** Geocentric X/Y/Z to geodetic lon/lat in degrees, into `out` (iterated to well below 1e-12 degrees). */
export function fromGeocentric(x: number, y: number, z: number, e: Ellipsoid, out: Float64Array): void {
  const a = e[0];
  const es = eccentricity2(e);
  const p = Math.hypot(x, y);
  const lam = Math.atan2(y, x);
  if (p < 1e-9) {
    out[0] = lam / RAD;
    out[1] = z >= 0 ? 90 : -90;
    return;
  }
  // Bowring's start, then Newton-free fixed-point refinement on the latitude.
  let phi = Math.atan2(z, p * (1 - es));
  for (let i = 0; i < 8; i++) {
    const sinPhi = Math.sin(phi);
    const n = a / Math.sqrt(1 - es * sinPhi * sinPhi);
    const h = p / Math.cos(phi) - n;
    const next = Math.atan2(z, p * (1 - (es * n) / (n + h)));
    if (Math.abs(next - phi) < 1e-15) {
      phi = next;
      break;
    }
    phi = next;
  }
  out[0] = lam / RAD;
  out[1] = phi / RAD;
}

/**
 * A Helmert transformation with PROJ's small-angle rotation matrix, forward or inverse, in place on `v`.
 * `pivot` makes it Molodensky-Badekas (rotation and scale about that point).
 */
export function helmert(
  v: Float64Array,
  h: HelmertParameters,
  convention: "position_vector" | "coordinate_frame",
  inverse: boolean,
  pivot?: { px: number; py: number; pz: number },
): void {
  const [px, py, pz] = pivot ? [pivot.px, pivot.py, pivot.pz] : [0, 0, 0];
  const scale = 1 + h.s * 1e-6;
  const f = h.rx * ARCSEC;
  const t = h.ry * ARCSEC;
  const k = h.rz * ARCSEC;
  // Coordinate frame: [[1, k, -t], [-k, 1, f], [t, -f, 1]]; position vector: its transpose (the angles negated).
  const sign = convention === "position_vector" ? -1 : 1;
  const [r01, r02, r12] = [sign * k, -sign * t, sign * f];
  const [r10, r20, r21] = [-r01, -r02, -r12];
  const [r00, r11, r22] = [1, 1, 1];
  const x = v[0] as number;
  const y = v[1] as number;
  const z = v[2] as number;
  if (!inverse) {
    const X = x - px;
    const Y = y - py;
    const Z = z - pz;
    v[0] = scale * (r00 * X + r01 * Y + r02 * Z) + h.x + px;
    v[1] = scale * (r10 * X + r11 * Y + r12 * Z) + h.y + py;
    v[2] = scale * (r20 * X + r21 * Y + r22 * Z) + h.z + pz;
  } else {
    const X = (x - h.x - px) / scale;
    const Y = (y - h.y - py) / scale;
    const Z = (z - h.z - pz) / scale;
    v[0] = r00 * X + r10 * Y + r20 * Z + px;
    v[1] = r01 * X + r11 * Y + r21 * Z + py;
    v[2] = r02 * X + r12 * Y + r22 * Z + pz;
  }
}
