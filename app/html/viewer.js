// Replay page of `csim export-html` (app/export_html.cc embeds this file in the page).
// Reads the run from the JSON block #csim-data and draws it with three.js r111 (Debian's
// libjs-three, whose UMD builds define THREE and THREE.OrbitControls).
//
// Frames: the page holds a decimated subset of the recorded rows; frame k shows row
// data.frames.row[k] of the output file at time data.frames.time[k].
// URL: `#frame=N` shows frame N, paused (tests screenshot a given frame with it);
// `&size=WxH` fixes the view to W x H CSS pixels at the top left instead of the whole
// window, so that a screenshot and a --dump-dom of the same page agree on the projection
// even though headless Chromium lays the window out at different heights for the two.
// DOM: #csim-state carries the shown frame and, per body, its recorded position and the
// projection of that position on the view (CSS pixels from the view's top left corner),
// so a headless browser's --dump-dom can be checked against the file.
// Links: each joint (but a free one) is a solid dark polyline from its parent's origin (or
// the world's) through the joint frame origin to its child's origin; each constraint a
// dashed orange one from body A's origin through its points P and Q to body B's origin (a
// coupler: A's origin to B's). Both are drawn over the bodies. `#csim-state` counts them.
// Effort: the select box #actuator (or `&actuator=NAME` in the URL) plots the chosen
// actuator's effort over the frames, its limits, the saturated frames in red and a cursor
// at the shown frame; #csim-state carries the actuator, its effort and saturation then.
// Hydroelastic surfaces (data.surfaces, from /hydroelastic): each surface of the frame is a
// purple arrow of its net force on body b at its area centroid (the contact arrows' scale)
// and a teal arrow of its moment about that centroid (right-hand rule; as long as the force
// that makes that moment at a lever of a tenth of the scene's radius, so a moment of
// round-off stays invisible), and, when the file holds the polygons, its patch: the
// polygons filled, coloured by the pressure at their vertices from blue (0) through yellow
// to red (the page's largest pressure), outlined, drawn over the bodies. `#csim-state`
// counts the surfaces and polygons shown.
// Visual geometry (collide 0: a scene's visual-only shapes, an imported model's visuals,
// whose mesh files export-html read) is drawn translucent over the collision geometry, so
// that both show. When the bodies have both kinds, the checkboxes #visual and #collision
// hide either (`&collision=0` in the URL opens with the collision geometry hidden); with it
// hidden the visual geometry is drawn opaque, as the robot looks. World geometry is always
// drawn. `#csim-state` counts the visual geometries drawn and those whose mesh file could
// not be read (not drawn).
// Frames are world z-up, as in csim. Plain ES5 + three.js, so it runs from file:// with no
// module loader. Kept ASCII-only (it is embedded in a C++ raw string).
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('csim-data').textContent);
  var nb = data.bodies.length;
  var nf = data.frames.row.length;
  var palette = [0xe6194b, 0x3cb44b, 0x4363d8, 0xf58231, 0x911eb4, 0x42d4f4, 0xf032e6,
                 0xbfef45, 0x469990, 0x9a6324, 0x800000, 0x808000, 0x000075, 0xffe119];
  var kBackground = 0xdde3ea, kWorldColor = 0x9aa0a6, kContactColor = 0x101010;
  var kJointColor = 0x1d2430, kConstraintColor = 0xff8c00, kSaturatedColor = '#d62728';
  var kSurfaceForceColor = 0x7b2cbf, kMomentColor = 0x00897b, kPatchEdgeColor = 0x1d2430;

  // --- state ------------------------------------------------------------------------
  var frame = 0, playing = false, playStart = 0, playStartTime = 0;
  var renderer = null, scene = null, camera = null, controls = null;
  var bodyNodes = [], contactNodes = [], pathNodes = null, forceScale = 0, sceneRadius = 1;
  var linkNodes = null, jointLinks = [], constraintLinks = [], actuator = -1;
  var surfaceNodes = [], patchMesh = null, momentScale = 0, maxPressure = 0;
  var visualNodes = [], collisionNodes = [], visualMaterials = [], unreadVisuals = 0;

  // View size in CSS pixels: `&size=WxH` from the URL, else the window.
  var fixedSize = (function () {
    var m = /[#&]size=(\d+)x(\d+)/.exec(window.location.hash);
    return m ? {w: parseInt(m[1], 10), h: parseInt(m[2], 10)} : null;
  })();
  function viewWidth() { return fixedSize ? fixedSize.w : window.innerWidth; }
  function viewHeight() { return fixedSize ? fixedSize.h : window.innerHeight; }

  function bodyColor(b) { return palette[b % palette.length]; }
  function hex(c) { return '#' + ('000000' + c.toString(16)).slice(-6); }

  // --- geometry ---------------------------------------------------------------------
  function material(color, collide) {
    // Lambert (no specular) under lights that add up to 1: a pixel is the colour times a
    // factor in [0.45, 1], so its hue stays the material's (the test relies on it).
    return new THREE.MeshLambertMaterial({color: color, transparent: !collide,
                                          opacity: collide ? 1 : 0.5});
  }

  // Visual geometry drawn translucent (over collision geometry) or opaque (alone).
  function setVisualOpacity(opaque) {
    visualMaterials.forEach(function (m) {
      m.transparent = !opaque;
      m.opacity = opaque ? 1 : 0.5;
      m.needsUpdate = true;
    });
  }

  function meshGeometry(g, i) {
    var vo = g.vertex_offset[i], vc = g.vertex_count[i];
    var to = g.triangle_offset[i], tc = g.triangle_count[i];
    var positions = new Float32Array(g.vertices.slice(3 * vo, 3 * (vo + vc)));
    var index = g.triangles.slice(3 * to, 3 * (to + tc));
    var geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    geometry.setIndex(index);
    geometry = geometry.toNonIndexed();  // one normal per face: flat-shaded facets
    geometry.computeVertexNormals();
    return geometry;
  }

  // A z-axis cylinder (three's cylinders run along y).
  function cylinder(r, length, mat) {
    var m = new THREE.Mesh(new THREE.CylinderBufferGeometry(r, r, length, 32), mat);
    m.rotation.x = Math.PI / 2;
    return m;
  }

  function halfspace(g, i) {
    var node = new THREE.Group();
    var size = 8 * sceneRadius;
    var plane = new THREE.Mesh(new THREE.PlaneBufferGeometry(size, size),
                               new THREE.MeshLambertMaterial({color: 0xc8cbd0,
                                                              side: THREE.DoubleSide}));
    var grid = new THREE.GridHelper(size, 32, 0x7d848c, 0xa8aeb5);
    grid.rotation.x = Math.PI / 2;  // GridHelper lies in xz
    grid.position.z = 1e-4 * size;
    node.add(plane, grid);
    return node;
  }

  // The three.js object of geometry i, in its geometry frame.
  function shapeObject(g, i, color) {
    var s = g.size.slice(3 * i, 3 * i + 3), mat = material(color, g.collide[i] !== 0);
    if (g.collide[i] === 0) visualMaterials.push(mat);
    switch (g.shape[i]) {
      case 'sphere':
        return new THREE.Mesh(new THREE.SphereBufferGeometry(s[0], 32, 16), mat);
      case 'ellipsoid': {
        var e = new THREE.Mesh(new THREE.SphereBufferGeometry(1, 32, 16), mat);
        e.scale.set(s[0], s[1], s[2]);
        return e;
      }
      case 'box':
        return new THREE.Mesh(new THREE.BoxBufferGeometry(s[0], s[1], s[2]), mat);
      case 'cylinder':
        return cylinder(s[0], s[1], mat);
      case 'capsule': {
        var c = new THREE.Group();
        c.add(cylinder(s[0], s[1], mat));
        for (var k = -1; k <= 1; k += 2) {
          var cap = new THREE.Mesh(new THREE.SphereBufferGeometry(s[0], 32, 16), mat);
          cap.position.z = 0.5 * k * s[1];
          c.add(cap);
        }
        return c;
      }
      case 'halfspace':
        return halfspace(g, i);
      case 'mesh':
        // A visual mesh from a file keeps the file's non-convex shape, whose triangles face
        // either way (the export winds them away from the centre): both sides are lit.
        if (g.collide[i] === 0) mat.side = THREE.DoubleSide;
        return new THREE.Mesh(meshGeometry(g, i), mat);
    }
    return new THREE.Group();
  }

  // Pose of geometry i in its body frame.
  function placeGeometry(object, g, i) {
    var q = g.quaternion;
    var node = new THREE.Group();
    node.position.set(g.position[3 * i], g.position[3 * i + 1], g.position[3 * i + 2]);
    node.quaternion.set(q[4 * i + 1], q[4 * i + 2], q[4 * i + 3], q[4 * i]);  // file: w first
    node.add(object);
    return node;
  }

  // Radius of a sphere around the geometry frame that holds the shape (halfspace: 0).
  function shapeRadius(g, i) {
    var s = g.size.slice(3 * i, 3 * i + 3);
    switch (g.shape[i]) {
      case 'sphere': return s[0];
      case 'box': return 0.5 * Math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
      case 'cylinder': case 'capsule': return s[0] + 0.5 * s[1];
      case 'ellipsoid': return Math.max(s[0], s[1], s[2]);
      case 'mesh': {
        var r = 0, vo = g.vertex_offset[i];
        for (var k = 0; k < g.vertex_count[i]; ++k) {
          var x = g.vertices[3 * (vo + k)], y = g.vertices[3 * (vo + k) + 1],
              z = g.vertices[3 * (vo + k) + 2];
          r = Math.max(r, Math.sqrt(x * x + y * y + z * z));
        }
        return r;
      }
    }
    return 0;
  }

  // Centre and radius of everything the run shows: body origins over all frames, grown
  // by each body's geometry, and the world's bounded geometry.
  function sceneBounds() {
    var g = data.geometry, lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    var reach = [];
    for (var b = 0; b < nb; ++b) reach.push(0);
    function grow(p, r) {
      for (var k = 0; k < 3; ++k) { lo[k] = Math.min(lo[k], p[k] - r); hi[k] = Math.max(hi[k], p[k] + r); }
    }
    for (var i = 0; i < g.body.length; ++i) {
      var r = shapeRadius(g, i), p = g.position.slice(3 * i, 3 * i + 3);
      if (g.body[i] >= 0) reach[g.body[i]] = Math.max(reach[g.body[i]], Math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) + r);
      else if (r > 0) grow(p, r);
    }
    var pos = data.frames.position;
    for (var f = 0; f < nf; ++f) {
      for (b = 0; b < nb; ++b) grow(pos.slice(3 * (f * nb + b), 3 * (f * nb + b) + 3), reach[b]);
    }
    if (!(lo[0] <= hi[0])) { lo = [-1, -1, -1]; hi = [1, 1, 1]; }
    var center = new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    var radius = 0.5 * Math.sqrt(Math.pow(hi[0] - lo[0], 2) + Math.pow(hi[1] - lo[1], 2) + Math.pow(hi[2] - lo[2], 2));
    return {center: center, radius: Math.max(radius, 0.05)};
  }

  // --- scene --------------------------------------------------------------------------
  function buildScene(bounds) {
    scene = new THREE.Scene();
    scene.background = new THREE.Color(kBackground);
    scene.add(new THREE.AmbientLight(0xffffff, 0.45));
    var sun = new THREE.DirectionalLight(0xffffff, 0.55);
    sun.position.set(0.4, -0.6, 1.0);
    scene.add(sun);

    var g = data.geometry;
    for (var b = 0; b < nb; ++b) {
      var node = new THREE.Group();
      node.name = data.bodies[b];
      bodyNodes.push(node);
      scene.add(node);
    }
    for (var i = 0; i < g.body.length; ++i) {
      var owner = g.body[i];
      // A mesh file the export could not read has no vertices: nothing to draw.
      if (g.shape[i] === 'mesh' && g.vertex_count[i] === 0) { ++unreadVisuals; continue; }
      var placed = placeGeometry(shapeObject(g, i, owner >= 0 ? bodyColor(owner) : kWorldColor), g, i);
      (owner >= 0 ? bodyNodes[owner] : scene).add(placed);
      if (owner >= 0) (g.collide[i] !== 0 ? collisionNodes : visualNodes).push(placed);
    }
    // A body without geometry (or a file written before /model/geometry existed) still
    // shows where it is: a small sphere at its frame origin.
    for (b = 0; b < nb; ++b) {
      if (g.body.indexOf(b) >= 0) continue;
      bodyNodes[b].add(new THREE.Mesh(new THREE.SphereBufferGeometry(0.03 * bounds.radius, 16, 8),
                                      material(bodyColor(b), true)));
    }
    addReferences(bounds);
    camera = new THREE.PerspectiveCamera(40, viewWidth() / viewHeight(),
                                         bounds.radius / 100, bounds.radius * 100);
    camera.up.set(0, 0, 1);
    var dir = new THREE.Vector3(1.0, -1.6, 0.9).normalize();
    camera.position.copy(bounds.center).addScaledVector(dir, 3.2 * bounds.radius);
    camera.lookAt(bounds.center);
  }

  // World axes at the origin (x red, y green, z blue), a floor grid when the world has no
  // halfspace (so that motion reads against something), and each body's path: that of
  // the centre of its first geometry (a pendulum bob, not the pivot where its frame may
  // be), or of its frame origin when it has none.
  function addReferences(bounds) {
    var axes = new THREE.AxesHelper(0.25 * bounds.radius);
    scene.add(axes);
    if (data.geometry.shape.indexOf('halfspace') < 0) {
      var size = 4 * bounds.radius;
      var grid = new THREE.GridHelper(size, 20, 0xb0b6bd, 0xc8cdd3);
      grid.rotation.x = Math.PI / 2;
      grid.position.set(bounds.center.x, bounds.center.y, bounds.center.z - bounds.radius);
      scene.add(grid);
    }
    var paths = new THREE.Group(), g = data.geometry, p = data.frames.position,
        q = data.frames.quaternion;
    for (var b = 0; b < nb && nf > 1; ++b) {
      var first = g.body.indexOf(b), p_BG = new THREE.Vector3();
      if (first >= 0) p_BG.fromArray(g.position, 3 * first);
      var points = new Float32Array(3 * nf), p_WG = new THREE.Vector3(),
          q_WB = new THREE.Quaternion();
      for (var f = 0; f < nf; ++f) {
        var i = f * nb + b;
        q_WB.set(q[4 * i + 1], q[4 * i + 2], q[4 * i + 3], q[4 * i]);
        p_WG.copy(p_BG).applyQuaternion(q_WB).add(new THREE.Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
        p_WG.toArray(points, 3 * f);
      }
      var geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(points, 3));
      // Half way to the background: paths never look like the body itself.
      var color = new THREE.Color(bodyColor(b)).lerp(new THREE.Color(kBackground), 0.55);
      paths.add(new THREE.Line(geometry, new THREE.LineBasicMaterial({color: color})));
    }
    scene.add(paths);
    pathNodes = paths;
  }

  // Largest norm of the 3-vectors packed in `values`.
  function maxNorm(values) {
    var m = 0;
    for (var k = 0; k < values.length; k += 3)
      m = Math.max(m, Math.sqrt(values[k] * values[k] + values[k + 1] * values[k + 1] + values[k + 2] * values[k + 2]));
    return m;
  }

  // Force arrows: the largest force shown (a contact's or a surface's net force) is drawn
  // half a scene radius long.
  function chooseForceScale() {
    var c = data.contacts, s = data.surfaces;
    var fmax = Math.max(c ? maxNorm(c.force) : 0, s ? maxNorm(s.force) : 0);
    return fmax > 0 ? 0.5 * sceneRadius / fmax : 0;
  }

  // An arrow drawn over the bodies (its direction and length set per frame).
  function overlayArrow(color) {
    var arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, color);
    [arrow.line.material, arrow.cone.material].forEach(function (m) { m.depthTest = false; });
    arrow.renderOrder = arrow.line.renderOrder = arrow.cone.renderOrder = 1;
    return arrow;
  }

  // Points `arrow` along `v` (packed at index j of `values`), `scale` long per unit;
  // hidden when too short to see.
  function setArrow(arrow, values, j, scale) {
    var v = new THREE.Vector3(values[j], values[j + 1], values[j + 2]);
    var length = v.length() * scale;
    arrow.visible = length > 1e-6 * sceneRadius;
    if (!arrow.visible) return;
    arrow.setDirection(v.normalize());
    arrow.setLength(length, Math.min(0.3 * length, 0.08 * sceneRadius),
                    Math.min(0.15 * length, 0.04 * sceneRadius));
  }

  function contactNode(k) {
    while (contactNodes.length <= k) {
      var node = new THREE.Group();
      var dot = new THREE.Mesh(new THREE.SphereBufferGeometry(0.012 * sceneRadius, 12, 8),
                               new THREE.MeshBasicMaterial({color: kContactColor}));
      var arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1,
                                        kContactColor);
      // Drawn over the bodies: a force on a resting body points into it.
      [dot.material, arrow.line.material, arrow.cone.material].forEach(function (m) {
        m.depthTest = false;
      });
      node.renderOrder = 1;
      dot.renderOrder = arrow.line.renderOrder = arrow.cone.renderOrder = 1;
      node.add(dot, arrow);
      node.userData.arrow = arrow;
      scene.add(node);
      contactNodes.push(node);
    }
    return contactNodes[k];
  }

  function showContacts(f) {
    var c = data.contacts, count = c ? c.count[f] : 0, first = c ? c.offset[f] : 0;
    for (var k = 0; k < count; ++k) {
      var node = contactNode(k), j = 3 * (first + k);
      node.visible = true;
      node.position.set(c.point[j], c.point[j + 1], c.point[j + 2]);
      setArrow(node.userData.arrow, c.force, j, forceScale);
    }
    for (k = count; k < contactNodes.length; ++k) contactNodes[k].visible = false;
    return count;
  }

  // --- hydroelastic surfaces ----------------------------------------------------------
  // Moment arrows: a moment is drawn as long as the force that makes it at a lever of a
  // tenth of the scene's radius. The pressure scale's top: the page's largest pressure.
  function chooseSurfaceScales() {
    var s = data.surfaces;
    if (!s) return;
    momentScale = forceScale / (0.1 * sceneRadius);
    if (s.polygons) s.polygons.pressure.forEach(function (p) { maxPressure = Math.max(maxPressure, p); });
  }

  function surfaceNode(k) {
    while (surfaceNodes.length <= k) {
      var node = new THREE.Group();
      var dot = new THREE.Mesh(new THREE.SphereBufferGeometry(0.015 * sceneRadius, 12, 8),
                               new THREE.MeshBasicMaterial({color: kSurfaceForceColor,
                                                            depthTest: false}));
      var force = overlayArrow(kSurfaceForceColor), moment = overlayArrow(kMomentColor);
      node.renderOrder = dot.renderOrder = 1;
      node.add(dot, force, moment);
      node.userData = {force: force, moment: moment};
      scene.add(node);
      surfaceNodes.push(node);
    }
    return surfaceNodes[k];
  }

  // Colour of pressure p on the page's scale: blue, yellow, red.
  function pressureColor(p) {
    var t = maxPressure > 0 ? Math.max(0, Math.min(1, p / maxPressure)) : 0;
    if (t < 0.5) return [0.23 + 1.54 * t, 0.30 + 1.2 * t, 0.75 - 1.1 * t];
    return [1.0 - 0.3 * (t - 0.5), 0.9 - 1.6 * (t - 0.5), 0.2 - 0.2 * (t - 0.5)];
  }

  // The patch of frame f: each polygon a fan of triangles from its first vertex, with the
  // colours of its vertices' pressures, and its outline. Returns the number of polygons
  // drawn.
  function showPatches(f) {
    var P = data.surfaces && data.surfaces.polygons;
    if (patchMesh) {
      scene.remove(patchMesh);
      patchMesh.geometry.dispose();
      patchMesh.children[0].geometry.dispose();
      patchMesh = null;
    }
    if (!P || P.count[f] === 0) return 0;
    var first = P.offset[f], vertex = 0, positions = [], colors = [], edges = [];
    function point(v, out) { out.push(P.vertex[3 * v], P.vertex[3 * v + 1], P.vertex[3 * v + 2]); }
    for (var k = 0; k < first; ++k) vertex += P.vertex_count[k];
    for (k = first; k < first + P.count[f]; ++k) {
      var n = P.vertex_count[k];
      for (var i = 0; i < n; ++i) {
        point(vertex + i, edges);
        point(vertex + (i + 1) % n, edges);
        if (i === 0 || i + 1 === n) continue;
        [vertex, vertex + i, vertex + i + 1].forEach(function (v) {
          point(v, positions);
          Array.prototype.push.apply(colors, pressureColor(P.pressure[v]));
        });
      }
      vertex += n;
    }
    var geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(positions), 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(new Float32Array(colors), 3));
    // Over the bodies (a patch lies on their faces) and under the arrows (renderOrder 1).
    var mat = new THREE.MeshBasicMaterial({vertexColors: THREE.VertexColors,
                                           side: THREE.DoubleSide, depthTest: false});
    patchMesh = new THREE.Mesh(geometry, mat);
    patchMesh.renderOrder = 0.5;
    var outline = new THREE.BufferGeometry();
    outline.setAttribute('position', new THREE.BufferAttribute(new Float32Array(edges), 3));
    var lines = new THREE.LineSegments(outline, new THREE.LineBasicMaterial({
      color: kPatchEdgeColor, depthTest: false}));
    lines.renderOrder = 0.6;
    patchMesh.add(lines);
    scene.add(patchMesh);
    return P.count[f];
  }

  // Surfaces of frame f: their net force and moment at the centroid, and their patches.
  // Returns the number of surfaces shown.
  function showSurfaces(f) {
    var s = data.surfaces, count = s ? s.count[f] : 0, first = s ? s.offset[f] : 0;
    for (var k = 0; k < count; ++k) {
      var node = surfaceNode(k), j = 3 * (first + k);
      node.visible = true;
      node.position.set(s.centroid[j], s.centroid[j + 1], s.centroid[j + 2]);
      setArrow(node.userData.force, s.force, j, forceScale);
      setArrow(node.userData.moment, s.moment, j, momentScale);
    }
    for (k = count; k < surfaceNodes.length; ++k) surfaceNodes[k].visible = false;
    return count;
  }

  // --- links --------------------------------------------------------------------------
  // A polyline of `n` points drawn over the bodies, solid or dashed.
  function linkLine(n, color, dashed) {
    var geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    var mat = dashed
        ? new THREE.LineDashedMaterial({color: color, dashSize: 0.04 * sceneRadius,
                                        gapSize: 0.025 * sceneRadius})
        : new THREE.LineBasicMaterial({color: color});
    mat.depthTest = false;
    var line = new THREE.Line(geometry, mat);
    line.renderOrder = 2;
    line.frustumCulled = false;
    var dot = new THREE.Mesh(new THREE.SphereBufferGeometry(0.012 * sceneRadius, 12, 8),
                             new THREE.MeshBasicMaterial({color: color, depthTest: false}));
    dot.renderOrder = 2;
    var node = new THREE.Group();
    node.add(line, dot);
    node.userData = {line: line, dot: dot, dashed: dashed};
    linkNodes.add(node);
    return node;
  }

  // The joints and constraints the page draws (null parents: the scene did not reload).
  function buildLinks() {
    linkNodes = new THREE.Group();
    scene.add(linkNodes);
    var j = data.joints, c = data.constraints;
    if (j && j.parent) {
      for (var k = 0; k < j.name.length; ++k)
        if (j.type[k] !== 'free') jointLinks.push({joint: k, node: linkLine(3, kJointColor, false)});
    }
    if (c && c.body_a) {
      for (k = 0; k < c.name.length; ++k)
        constraintLinks.push({constraint: k, node: linkLine(4, kConstraintColor, true)});
    }
  }

  // Point `p_B` (array, offset o) of body b (-1: the world) in the world at frame f.
  function worldPoint(f, b, p_B, o) {
    var v = new THREE.Vector3();
    if (p_B) v.fromArray(p_B, o);
    if (b < 0) return v;
    var p = data.frames.position, q = data.frames.quaternion, i = f * nb + b;
    v.applyQuaternion(new THREE.Quaternion(q[4 * i + 1], q[4 * i + 2], q[4 * i + 3], q[4 * i]));
    return v.add(new THREE.Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
  }

  function setLink(node, points, dotPoint) {
    var a = node.userData.line.geometry.attributes.position;
    for (var k = 0; k < points.length; ++k) points[k].toArray(a.array, 3 * k);
    a.needsUpdate = true;
    node.userData.line.geometry.computeBoundingSphere();
    if (node.userData.dashed) node.userData.line.computeLineDistances();
    node.userData.dot.position.copy(dotPoint);
  }

  function showLinks(f) {
    var j = data.joints, c = data.constraints;
    jointLinks.forEach(function (link) {
      var k = link.joint, parent = j.parent[k];
      var joint = worldPoint(f, parent, j.position, 3 * k);
      setLink(link.node, [worldPoint(f, parent, null, 0), joint, worldPoint(f, k, null, 0)], joint);
    });
    constraintLinks.forEach(function (link) {
      var k = link.constraint, a = c.body_a[k], b = c.body_b[k];
      var P = worldPoint(f, a, c.point_a, 3 * k), Q = worldPoint(f, b, c.point_b, 3 * k);
      setLink(link.node, [worldPoint(f, a, null, 0), P, Q, worldPoint(f, b, null, 0)], Q);
    });
  }

  // --- effort -------------------------------------------------------------------------
  function effortUnit(a) {
    var j = data.joints, type = j ? j.type[data.actuators.joint[a]] : '';
    return type === 'prismatic' ? 'N' : 'N m';
  }

  // The chosen actuator's effort over the frames, its limits (dashed), saturated frames
  // (red) and the shown frame (cursor).
  function drawEffort(f) {
    var box = document.getElementById('effort');
    if (!box) return;
    box.hidden = actuator < 0;
    if (actuator < 0) return;
    var A = data.actuators, na = A.name.length, times = data.frames.time;
    var canvas = document.getElementById('effort-plot'), ctx = canvas.getContext('2d');
    var w = canvas.width, h = canvas.height, pad = 8;
    var lo = 0, hi = 0, limit = A.limit[actuator];
    for (var k = 0; k < nf; ++k) {
      lo = Math.min(lo, A.effort[k * na + actuator]);
      hi = Math.max(hi, A.effort[k * na + actuator]);
    }
    if (limit !== null) { lo = Math.min(lo, -limit); hi = Math.max(hi, limit); }
    if (hi - lo < 1e-12) { lo -= 1; hi += 1; }
    var t0 = times[0], t1 = nf > 1 ? times[nf - 1] : t0 + 1;
    function x(t) { return pad + (w - 2 * pad) * (t - t0) / (t1 - t0 || 1); }
    function y(e) { return h - pad - (h - 2 * pad) * (e - lo) / (hi - lo); }
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = 'rgba(255, 255, 255, 0.9)';
    ctx.fillRect(0, 0, w, h);
    ctx.strokeStyle = '#9aa0a6';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(pad, y(0));
    ctx.lineTo(w - pad, y(0));
    ctx.stroke();
    if (limit !== null) {
      ctx.setLineDash([4, 3]);
      [limit, -limit].forEach(function (e) {
        ctx.beginPath();
        ctx.moveTo(pad, y(e));
        ctx.lineTo(w - pad, y(e));
        ctx.stroke();
      });
      ctx.setLineDash([]);
    }
    ctx.strokeStyle = '#4363d8';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (k = 0; k < nf; ++k) {
      var px = x(times[k]), py = y(A.effort[k * na + actuator]);
      if (k === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
    }
    ctx.stroke();
    ctx.fillStyle = kSaturatedColor;
    for (k = 0; k < nf; ++k)
      if (A.saturated[k * na + actuator]) ctx.fillRect(x(times[k]) - 1.5, y(A.effort[k * na + actuator]) - 1.5, 3, 3);
    ctx.strokeStyle = '#1d2430';
    ctx.beginPath();
    ctx.moveTo(x(times[f]), pad);
    ctx.lineTo(x(times[f]), h - pad);
    ctx.stroke();
    var e = A.effort[f * na + actuator], saturated = A.saturated[f * na + actuator] !== 0;
    var label = document.getElementById('effort-label');
    label.textContent = A.name[actuator] + ': ' + e.toPrecision(4) + ' ' + effortUnit(actuator) +
                        (limit !== null ? ' (limit ' + limit + ')' : '') +
                        (saturated ? ', saturated since the previous frame' : '');
    label.className = saturated ? 'saturated' : '';
  }

  function selectActuator(a) {
    actuator = data.actuators && a >= 0 && a < data.actuators.name.length ? a : -1;
    var select = document.getElementById('actuator');
    if (select) select.value = String(actuator);
    drawEffort(frame);
    publishState(frame);
  }

  // --- frames -------------------------------------------------------------------------
  function poseBodies(f) {
    var p = data.frames.position, q = data.frames.quaternion;
    for (var b = 0; b < nb; ++b) {
      var i = f * nb + b;
      bodyNodes[b].position.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
      bodyNodes[b].quaternion.set(q[4 * i + 1], q[4 * i + 2], q[4 * i + 3], q[4 * i]);
    }
  }

  // #csim-state: frame, row, time, and per body its recorded position and screen point.
  function publishState(f) {
    var state = document.getElementById('csim-state');
    state.setAttribute('data-frame', f);
    state.setAttribute('data-row', data.frames.row[f]);
    state.setAttribute('data-time', data.frames.time[f]);
    state.setAttribute('data-width', viewWidth());
    state.setAttribute('data-height', viewHeight());
    state.setAttribute('data-webgl', renderer ? 1 : 0);
    camera.updateMatrixWorld();
    var p = data.frames.position;
    for (var b = 0; b < nb; ++b) {
      var span = state.children[b];
      var i = 3 * (f * nb + b), v = new THREE.Vector3(p[i], p[i + 1], p[i + 2]);
      span.setAttribute('data-x', p[i]);
      span.setAttribute('data-y', p[i + 1]);
      span.setAttribute('data-z', p[i + 2]);
      v.project(camera);
      span.setAttribute('data-screen-x', ((v.x + 1) / 2 * viewWidth()).toFixed(1));
      span.setAttribute('data-screen-y', ((1 - v.y) / 2 * viewHeight()).toFixed(1));
    }
    state.setAttribute('data-joint-links', jointLinks.length);
    var S = data.surfaces;
    state.setAttribute('data-surfaces', S ? S.count[f] : 0);
    state.setAttribute('data-polygons', S && S.polygons ? S.polygons.count[f] : 0);
    state.setAttribute('data-patch-drawn', patchMesh ? 1 : 0);
    state.setAttribute('data-constraint-links', constraintLinks.length);
    state.setAttribute('data-visual-geometries', visualNodes.length);
    state.setAttribute('data-visual-unread', unreadVisuals);
    var collision = document.getElementById('collision');
    state.setAttribute('data-collision-shown', collision && !collision.checked ? 0 : 1);
    if (actuator >= 0) {
      var A = data.actuators, k = f * A.name.length + actuator;
      state.setAttribute('data-actuator', A.name[actuator]);
      state.setAttribute('data-effort', A.effort[k]);
      state.setAttribute('data-saturated', A.saturated[k]);
    } else {
      state.setAttribute('data-actuator', '');
    }
    state.setAttribute('data-ready', 1);
  }

  function render() {
    if (renderer) renderer.render(scene, camera);
  }

  function showFrame(f) {
    if (nf === 0) return;
    frame = Math.max(0, Math.min(nf - 1, f | 0));
    poseBodies(frame);
    showLinks(frame);
    drawEffort(frame);
    var shown = showContacts(frame), surfaces = showSurfaces(frame), polygons = showPatches(frame);
    document.getElementById('slider').value = frame;
    document.getElementById('time').textContent = 't = ' + data.frames.time[frame].toFixed(4) + ' s';
    var label = 'frame ' + frame + ' / ' + (nf - 1) + ' (step row ' + data.frames.row[frame] + ')';
    if (data.contacts) {
      label += ', contacts ' + shown;
      if (data.contacts.total[frame] > shown) label += ' of ' + data.contacts.total[frame];
    }
    if (data.surfaces) {
      label += ', surfaces ' + surfaces;
      var P = data.surfaces.polygons;
      if (P) label += ' (' + polygons + (P.total[frame] > polygons ? ' of ' + P.total[frame] : '') +
                      ' polygons)';
    }
    document.getElementById('frame-label').textContent = label;
    render();
    publishState(frame);
  }

  // --- playback -----------------------------------------------------------------------
  function setPlaying(on) {
    playing = on && nf > 1;
    document.getElementById('play').textContent = playing ? 'Pause' : 'Play';
    if (!playing) return;
    if (frame >= nf - 1) showFrame(0);
    playStart = performance.now();
    playStartTime = data.frames.time[frame];
    requestAnimationFrame(tick);
  }

  // Plays in simulated time (1 s of run per second), stepping to the last frame not after it.
  function tick(now) {
    if (!playing) return;
    var t = playStartTime + (now - playStart) / 1000, times = data.frames.time, f = frame;
    while (f + 1 < nf && times[f + 1] <= t) ++f;
    if (f !== frame) showFrame(f);
    if (frame >= nf - 1) { setPlaying(false); return; }
    requestAnimationFrame(tick);
  }

  function frameFromHash() {
    var m = /(?:^#|&)frame=(\d+)/.exec(window.location.hash);
    return m ? parseInt(m[1], 10) : null;
  }

  // `&actuator=NAME` selects the actuator whose effort is plotted.
  function actuatorFromHash() {
    var m = /(?:^#|&)actuator=([^&]*)/.exec(window.location.hash);
    return m && data.actuators ? data.actuators.name.indexOf(decodeURIComponent(m[1])) : -1;
  }

  function applyHash() {
    if (data.actuators) selectActuator(actuatorFromHash());
    var f = frameFromHash();
    if (f === null) return false;
    setPlaying(false);
    showFrame(f);
    return true;
  }

  // --- page ---------------------------------------------------------------------------
  function buildStateElement() {
    var state = document.getElementById('csim-state');
    for (var b = 0; b < nb; ++b) {
      var span = document.createElement('span');
      span.className = 'csim-body';
      span.setAttribute('data-index', b);
      span.setAttribute('data-name', data.bodies[b]);
      span.setAttribute('data-color', hex(bodyColor(b)));
      state.appendChild(span);
    }
  }

  function buildPanel() {
    var slider = document.getElementById('slider');
    slider.max = Math.max(nf - 1, 0);
    slider.addEventListener('input', function () { setPlaying(false); showFrame(+slider.value); });
    document.getElementById('play').addEventListener('click', function () { setPlaying(!playing); });
    var paths = document.getElementById('paths');
    paths.addEventListener('change', function () {
      pathNodes.visible = paths.checked;
      render();
    });
    var links = document.getElementById('links');
    if (links) {
      links.addEventListener('change', function () {
        linkNodes.visible = links.checked;
        render();
      });
    }
    var visual = document.getElementById('visual'), collision = document.getElementById('collision');
    if (visual && collision) {
      var showGeometry = function () {
        visualNodes.forEach(function (node) { node.visible = visual.checked; });
        collisionNodes.forEach(function (node) { node.visible = collision.checked; });
        setVisualOpacity(!collision.checked);
        render();
        publishState(frame);
      };
      visual.addEventListener('change', showGeometry);
      collision.addEventListener('change', showGeometry);
      if (/(?:^#|&)collision=0/.test(window.location.hash)) {
        collision.checked = false;
        showGeometry();
      }
    }
    var select = document.getElementById('actuator');
    if (select) select.addEventListener('change', function () { selectActuator(+select.value); });
    window.addEventListener('keydown', function (e) {
      if (e.key === ' ') { setPlaying(!playing); e.preventDefault(); }
      else if (e.key === 'ArrowRight') { setPlaying(false); showFrame(frame + 1); }
      else if (e.key === 'ArrowLeft') { setPlaying(false); showFrame(frame - 1); }
    });
    var info = data.scene + ' (' + data.status + '), ' + data.recorded_rows + ' rows, ' + nf +
               ' frames shown';
    if (data.links_note && (data.joints || data.constraints))
      info += '; joints and constraints not drawn: ' + data.links_note;
    if (forceScale > 0) info += '; force arrows: 1 m = ' + (1 / forceScale).toPrecision(3) + ' N';
    if (momentScale > 0)
      info += '; moment arrows: 1 m = ' + (1 / momentScale).toPrecision(3) + ' N m';
    if (maxPressure > 0)
      info += '; pressure: blue 0, yellow ' + (maxPressure / 2).toPrecision(3) + ', red ' +
              maxPressure.toPrecision(3) + ' Pa';
    document.getElementById('info').textContent = info;
  }

  function message(text) {
    var m = document.getElementById('message');
    m.textContent = text;
    m.hidden = false;
  }

  function main() {
    var bounds = sceneBounds();
    sceneRadius = bounds.radius;
    buildScene(bounds);
    buildLinks();
    forceScale = chooseForceScale();
    chooseSurfaceScales();
    try {
      renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    } catch (e) {
      renderer = null;
      message('WebGL is not available in this browser: the 3D view cannot be drawn.');
    }
    if (renderer) {
      renderer.setPixelRatio(window.devicePixelRatio || 1);
      renderer.setSize(viewWidth(), viewHeight());
      document.getElementById('view').appendChild(renderer.domElement);
      controls = new THREE.OrbitControls(camera, renderer.domElement);
      controls.target.copy(bounds.center);
      controls.update();
      controls.addEventListener('change', function () { render(); publishState(frame); });
    }
    window.addEventListener('resize', function () {
      camera.aspect = viewWidth() / viewHeight();
      camera.updateProjectionMatrix();
      if (renderer) renderer.setSize(viewWidth(), viewHeight());
      render();
      publishState(frame);
    });
    window.addEventListener('hashchange', applyHash);
    buildStateElement();
    buildPanel();
    if (nf === 0) { message('The file holds no recorded rows yet.'); render(); return; }
    if (data.geometry.body.length === 0 && nb > 0)
      message('The file has no /model/geometry (written by an older csim): bodies are drawn ' +
              'as small spheres at their frame origins.');
    else if (data.visual_note)
      message('Visual meshes not drawn (their files could not be read when the page was ' +
              'made): ' + data.visual_note);
    if (!applyHash()) { showFrame(0); setPlaying(true); }
  }

  main();
})();
