package camera

import (
	"strings"

	v4l2 "github.com/pion/mediadevices/pkg/driver/camera"
)

// Info describes one camera for listings (acbridge devices). Any of Label,
// its ";"-separated parts or "/dev/"+Node selects it in Config.Device.
type Info struct {
	Label string `json:"label"`
	Name  string `json:"name,omitempty"` // the driver's card name; "" when the node did not answer as a capture device
	Bus   string `json:"bus,omitempty"`  // bus info, such as usb-0000:00:14.0-1
	Node  string `json:"node,omitempty"` // video device node, such as video0
	Test  bool   `json:"test,omitempty"` // TestDevice, the generated test pattern
}

// List rescans the V4L2 devices and returns every camera Config.Device can
// name, the test pattern last. It opens no device for capture.
func List() []Info {
	drivers := candidates()
	out := make([]Info, 0, len(drivers))
	for _, d := range drivers {
		info := d.Info()
		if info.Label == TestDevice {
			out = append(out, Info{Label: TestDevice, Name: "test pattern", Test: true})
			continue
		}
		name, bus, _ := strings.Cut(info.Name, v4l2.LabelSeparator)
		_, node, _ := strings.Cut(info.Label, v4l2.LabelSeparator)
		out = append(out, Info{Label: info.Label, Name: name, Bus: bus, Node: node})
	}
	return out
}
