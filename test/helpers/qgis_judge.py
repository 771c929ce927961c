"""QGIS, the analysts' desktop GIS, opens a layer as an analyst would, says what it sees, and draws it.

usage: /usr/bin/python3 qgis_judge.py <uri> <ogr|postgres|OAPIF> <png> <filter expression> [xmin,ymin,xmax,ymax]

Prints one JSON object: whether QGIS could open the layer, its feature count, CRS, fields, the attributes of the
first feature the filter expression selects, and how many colours the PNG it rendered holds (a blank one has 1).
Runs headless (QT_QPA_PLATFORM=offscreen) with Debian's QGIS (python3-qgis, qgis-providers).
"""
import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
from qgis.core import (  # noqa: E402
    QgsApplication,
    QgsFeatureRequest,
    QgsFillSymbol,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsRectangle,
    QgsSingleSymbolRenderer,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor  # noqa: E402

uri, provider, png, expression = sys.argv[1:5]
extent = [float(v) for v in sys.argv[5].split(",")] if len(sys.argv) > 5 else None
app = QgsApplication([], False)
app.initQgis()
layer = QgsVectorLayer(uri, "layer", provider)
if not layer.isValid():
    print(json.dumps({"valid": False, "error": layer.error().summary()}))
    sys.stdout.flush()
    os._exit(0)
chosen = next(layer.getFeatures(QgsFeatureRequest().setFilterExpression(expression)), None)
symbol = QgsFillSymbol.createSimple({"color": "#c6dbef", "outline_color": "#2171b5", "outline_width": "0.1"})
layer.setRenderer(QgsSingleSymbolRenderer(symbol))
settings = QgsMapSettings()
settings.setLayers([layer])
settings.setDestinationCrs(layer.crs())
settings.setExtent(QgsRectangle(*extent) if extent else layer.extent())
settings.setOutputSize(QSize(900, 540))
settings.setBackgroundColor(QColor(255, 255, 255))
job = QgsMapRendererParallelJob(settings)
job.start()
job.waitForFinished()
image = job.renderedImage()
image.save(png, "PNG")
colours = {image.pixel(x, y) for x in range(0, 900, 5) for y in range(0, 540, 5)}
print(
    json.dumps(
        {
            "valid": True,
            "count": layer.featureCount(),
            "crs": layer.crs().authid(),
            "fields": [f.name() for f in layer.fields()],
            "chosen": {f.name(): str(chosen[f.name()]) for f in layer.fields()} if chosen else None,
            "colours": len(colours),
        }
    )
)
# Tearing QGIS down with its layers alive segfaults (3.22); everything is written, so leave at once.
sys.stdout.flush()
os._exit(0)
